"""junit.xml: one test case per policy, failed with its reasons when a dialog violated it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from intellagent.reports.junit import junit_xml


def cases(folder):
    root = ET.parse(folder.path("junit.xml")).getroot()
    return root, {case.get("name").split(":")[0]: case for case in root.iter("testcase")}


def test_one_case_per_policy(shop_report):
    root, by_policy = cases(shop_report[1])
    assert sorted(by_policy) == ["P01", "P02", "P03", "P04", "P05"]
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("5", "2", "1")


def test_a_violated_policy_fails_with_its_reasons(shop_report):
    _, by_policy = cases(shop_report[1])
    failure = by_policy["P03"].find("failure")
    assert failure.get("message") == "violated in 2 of 2 dialogs that tested it"
    assert failure.text.splitlines() == ['S002 turn 4 (judge): Changed the order without asking: "Done, I changed it."',
                                         'S004 turn 4 (judge): Changed the size unasked: "Done, I changed it."']


def test_a_policy_that_held_passes_and_a_never_tested_one_is_skipped(shop_report):
    _, by_policy = cases(shop_report[1])
    assert by_policy["P01"].find("failure") is None and by_policy["P01"].find("skipped") is None
    assert by_policy["P05"].find("skipped") is not None


def test_characters_xml_cannot_hold_are_replaced(shop_report):
    report = shop_report[0].report
    broken = report.policies[2].model_copy(update={"text": "bell\x07 and <tag> & more"})
    xml = junit_xml(report.model_copy(update={"policies": [broken]}))
    case = ET.fromstring(xml).find(".//testcase")
    assert case.get("name") == "P03: bell\ufffd and <tag> & more"
