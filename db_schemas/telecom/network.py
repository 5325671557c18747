"""What a phone gets from the network: service, signal, technology and data speed, from its state alone.

Nothing here is random or stored: the same phone, line and plan always give the same status bar and
the same speed test, so a fault (airplane mode on, data off, a wrong APN, roaming off abroad, a SIM
out of its slot, 2G only) shows the same way every time, and so does a phone once it is fixed.

At home the network offers 5G at four bars; abroad, a partner network offers 4G at three.
"""

from dataclasses import dataclass

from .schema import DEFAULT_APN, Line, Phone, Plan

TECHNOLOGIES = ("2G", "3G", "4G", "5G")
MODE_CEILING = {"5g_auto": "5G", "4g_auto": "4G", "3g_auto": "3G", "2g_only": "2G"}
"""The fastest technology each network mode lets the phone use."""
COVERAGE = {False: ("5G", 4), True: ("4G", 3)}
"""By whether the phone is abroad: the fastest technology on offer and the signal bars."""
FULL_BARS_MBPS = {"5G": 300.0, "4G": 60.0, "3G": 4.0, "2G": 0.2}
"""Download speed at four bars; fewer bars give proportionally less."""
SPEED_TIERS = ((100.0, "excellent"), (25.0, "good"), (5.0, "fair"), (1.0, "poor"), (0.0, "very poor"))
"""The lowest speed of each tier, in Mbps, fastest first."""


@dataclass(frozen=True)
class Reception:
    """The phone's connection as the network sees it.

    Attributes:
        service: why the phone has no service ('airplane mode', 'no SIM', 'SIM locked', 'no service'), or
            None when it has service.
        technology: the technology it is connected with, when it has service.
        bars: the signal bars (0 to 4).
        data_blocked: why mobile data does not work ('no service', 'mobile data off', ...), or None.
        speed_mbps: the download speed when data works, else None.
    """

    service: str | None
    technology: str | None
    bars: int
    data_blocked: str | None
    speed_mbps: float | None

    @property
    def speed_tier(self) -> str | None:
        """'excellent', 'good', 'fair', 'poor' or 'very poor', when data works."""
        if self.speed_mbps is None:
            return None
        return next(name for low, name in SPEED_TIERS if self.speed_mbps >= low)


def reception(phone: Phone, line: Line | None, plan: Plan | None) -> Reception:
    """The phone's service, signal and data speed, given the line it is on and that line's plan."""
    problem = _no_service(phone, line)
    if problem is not None:
        return Reception(service=problem, technology=None, bars=0, data_blocked="no service", speed_mbps=None)
    offered, bars = COVERAGE[phone.abroad]
    ceiling = MODE_CEILING.get(phone.network_mode, "2G")
    technology = min(offered, ceiling, key=TECHNOLOGIES.index)
    blocked = _data_blocked(phone, line, plan)
    speed = None if blocked else round(FULL_BARS_MBPS[technology] * bars / 4, 2)
    return Reception(service=None, technology=technology, bars=bars, data_blocked=blocked, speed_mbps=speed)


def can_register(phone: Phone, line: Line | None) -> bool:
    """Whether the phone registers on the network when it looks for it: its radio is on, its SIM works and its
    line is active."""
    return not phone.airplane_mode and phone.sim == "active" and line is not None and line.status == "active"


def _no_service(phone: Phone, line: Line | None) -> str | None:
    if phone.airplane_mode:
        return "airplane mode"
    if phone.sim == "missing":
        return "no SIM"
    if phone.sim != "active":
        return "SIM locked"
    if line is None or line.status != "active" or not phone.registered:
        return "no service"
    return None


def _data_blocked(phone: Phone, line: Line | None, plan: Plan | None) -> str | None:
    assert line is not None  # a phone with service is on a line
    if not phone.mobile_data:
        return "mobile data off"
    if phone.abroad and not phone.data_roaming:
        return "data roaming off on the phone"
    if phone.abroad and not line.roaming_enabled:
        return "roaming not enabled on the line"
    if phone.apn.get("name") != DEFAULT_APN["name"]:
        return "APN settings wrong"
    if exhausted(line, plan):
        return "data allowance used up"
    return None


def exhausted(line: Line, plan: Plan | None) -> bool:
    """Whether the line has used all its data this month (plan allowance plus data bought)."""
    if plan is None or plan.data_limit_gb is None:
        return False
    return line.data_used_gb >= plan.data_limit_gb + line.data_refueled_gb
