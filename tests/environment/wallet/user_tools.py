"""The customer's tools in their own banking app: look at its card settings, switch online payments."""

from intellagent.environment import InjectedSession, tool

from .schema import App


@tool(writes=False)
def open_card_settings(session: InjectedSession, install_id: int) -> str:
    """Open the app's card settings and read its switches.

    Args:
        install_id: Your app's installation number.
    """
    app = _app(session, install_id)
    return ", ".join(f"{name}: {'on' if value else 'off'}" for name, value in sorted(app.settings.items()))


@tool(writes=True)
def switch_online_payments(session: InjectedSession, install_id: int, on: bool) -> str:
    """Switch online payments on or off in the app.

    Args:
        install_id: Your app's installation number.
        on: true to switch them on, false to switch them off.
    """
    app = _app(session, install_id)
    app.settings = {**app.settings, "online_payments": on}
    return f"online payments: {'on' if on else 'off'}"


def _app(session: InjectedSession, install_id: int) -> App:
    app = session.get(App, install_id)
    if app is None:
        raise ValueError(f"no app installation {install_id}")
    return app
