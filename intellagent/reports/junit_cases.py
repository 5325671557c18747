"""The pieces junit.xml is built from: test cases and suites, their properties, and text XML can hold."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

# Characters XML 1.0 cannot hold at all, even escaped; a model's answer may contain them.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean(text: str) -> str:
    """`text` with every character XML cannot hold replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def seconds(value: float) -> str:
    """A duration as JUnit writes it."""
    return f"{value:.3f}"


def figure(value: float | None) -> object:
    """A figure as a suite property: empty where it is undefined (nothing was counted)."""
    return "" if value is None else value


def junit_case(classname: str, name: str, took: float) -> ET.Element:
    """An empty test case (it passed, until a failure, error or skip is added to it)."""
    return ET.Element("testcase", {"classname": clean(classname), "name": clean(name), "time": seconds(took)})


def junit_suite(name: str, cases: list[ET.Element], properties: dict[str, object], took: float) -> ET.Element:
    """A test suite of these cases, counted, with its properties."""
    suite = ET.Element("testsuite", {"name": clean(name), **counts(cases), "time": seconds(took)})
    listed = ET.SubElement(suite, "properties")
    for key, value in properties.items():
        ET.SubElement(listed, "property", {"name": key, "value": clean(str(value))})
    suite.extend(cases)
    return suite


def counts(cases: list[ET.Element]) -> dict[str, str]:
    """The tests, failures, errors and skipped of a list of cases, as a suite's attributes."""
    return {"tests": str(len(cases)),
            "failures": str(sum(case.find("failure") is not None for case in cases)),
            "errors": str(sum(case.find("error") is not None for case in cases)),
            "skipped": str(sum(case.find("skipped") is not None for case in cases))}
