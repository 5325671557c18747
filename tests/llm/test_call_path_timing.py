"""benchmarks/scale.py's timing of the call path: the CPU spent inside `LLM.answer` and `LLM.complete`."""

from __future__ import annotations

import asyncio
import time

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from intellagent.llm import LLM
from tests.conftest import load_benchmark


class Flows(BaseModel):
    flows: list[str]


def busy(seconds: float) -> None:
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def test_a_call_is_timed_once_though_answer_goes_through_complete_and_work_outside_it_is_not(script, make_llm):
    scale = load_benchmark("scale")

    def slow_answer(request):
        busy(0.1)  # the double's own work, inside the call
        return {"flows": ["book"]}

    script.on(schema="Flows", reply=slow_answer)
    llm = make_llm(script)
    asyncio.run(llm.answer([HumanMessage("Warm up.")], Flows, step="describe/flows"))  # first-call imports done
    cpu = scale.StageCPU()
    doors = (LLM.__dict__["answer"], LLM.__dict__["complete"])

    async def stage() -> None:
        busy(0.1)  # the stage's own work, outside any call
        await llm.answer([HumanMessage("Split the prompt.")], Flows, step="describe/flows")

    with scale.call_path_timed(cpu):
        asyncio.run(stage())
    assert 0.1 <= cpu.call_path < 0.19  # counted twice, it would be over 0.2; with the stage's work too, as well
    assert (LLM.__dict__["answer"], LLM.__dict__["complete"]) == doors  # put back


def test_per_call_figures_leave_the_doubles_work_out_of_both():
    stage = load_benchmark("scale").StageCPU(process=1.0, double=0.2, call_path=0.5)
    assert stage.per_call(100) == pytest.approx((8.0, 3.0))
