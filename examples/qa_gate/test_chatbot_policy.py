"""Policy adherence as a test of your suite: run it with pytest like any other.

    pytest examples/qa_gate/test_chatbot_policy.py
"""

import pytest

from examples.qa_gate.chatbot import careful, hasty


@pytest.mark.parametrize("build", [careful, hasty], ids=["careful", "hasty"])
def test_the_chatbot_keeps_its_policy(intellagent, build):
    intellagent.check(
        "configs/airline.yml",
        chatbot=build,
        fail_under=0.8,                      # at least 80% of the dialogs pass
        min_category={"user_consent": 1.0},  # and every test of a user-consent rule
    )
