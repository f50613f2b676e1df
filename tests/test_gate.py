"""llm/gate.py: a model server's slots, a conversation first, memory upkeep cancelled when a turn needs its slot."""

from __future__ import annotations

import asyncio

import pytest

from llm.gate import Gate, Preempted


async def hold(events: list, name: str, seconds: float, started: asyncio.Event | None = None) -> str:
    events.append(f"{name} starts")
    if started is not None:
        started.set()
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        events.append(f"{name} cancelled")
        raise
    events.append(f"{name} ends")
    return name


async def test_without_a_limit_every_call_goes_at_once():
    gate, events = Gate(None), []
    results = await asyncio.gather(*(gate.run(lambda i=i: hold(events, f"c{i}", 0.01), upkeep=i % 2 == 0)
                                     for i in range(4)))
    assert results == ["c0", "c1", "c2", "c3"]
    assert events[:4] == ["c0 starts", "c1 starts", "c2 starts", "c3 starts"]


async def test_one_slot_serves_one_chat_at_a_time_in_turn():
    gate, events = Gate(1), []
    await asyncio.gather(gate.run(lambda: hold(events, "a", 0.02)), gate.run(lambda: hold(events, "b", 0.02)))
    assert events == ["a starts", "a ends", "b starts", "b ends"]


async def test_a_chat_request_cancels_upkeep_in_flight_which_is_told_it_gave_way():
    gate, events, started = Gate(1), [], asyncio.Event()
    upkeep = asyncio.create_task(gate.run(lambda: hold(events, "extraction", 10, started), upkeep=True))
    await started.wait()
    assert await gate.run(lambda: hold(events, "turn", 0.01)) == "turn"
    with pytest.raises(Preempted):
        await upkeep
    assert events == ["extraction starts", "extraction cancelled", "turn starts", "turn ends"]
    assert gate.busy == 0


async def test_upkeep_waits_while_a_chat_request_waits_or_runs():
    gate, events, started = Gate(1), [], asyncio.Event()
    first = asyncio.create_task(gate.run(lambda: hold(events, "turn 1", 0.05, started)))
    await started.wait()
    upkeep = asyncio.create_task(gate.run(lambda: hold(events, "embedding", 0.01), upkeep=True))
    second = asyncio.create_task(gate.run(lambda: hold(events, "turn 2", 0.01)))
    await asyncio.gather(first, second, upkeep)
    assert events == ["turn 1 starts", "turn 1 ends", "turn 2 starts", "turn 2 ends", "embedding starts",
                      "embedding ends"]


async def test_a_caller_cancelled_itself_gets_cancelled_error_not_preempted():
    gate, events, started = Gate(1), [], asyncio.Event()
    upkeep = asyncio.create_task(gate.run(lambda: hold(events, "extraction", 10, started), upkeep=True))
    await started.wait()
    upkeep.cancel()
    with pytest.raises(asyncio.CancelledError):
        await upkeep
    assert events == ["extraction starts", "extraction cancelled"] and gate.busy == 0


async def test_shutdown_cancels_upkeep_in_flight():
    gate, events, started = Gate(2), [], asyncio.Event()
    upkeep = asyncio.create_task(gate.run(lambda: hold(events, "extraction", 10, started), upkeep=True))
    await started.wait()
    assert gate.cancel_upkeep() == 1
    with pytest.raises(Preempted):
        await upkeep


async def test_two_slots_let_a_turn_beside_upkeep_without_cancelling_it():
    gate, events, started = Gate(2), [], asyncio.Event()
    upkeep = asyncio.create_task(gate.run(lambda: hold(events, "extraction", 0.05, started), upkeep=True))
    await started.wait()
    assert await gate.run(lambda: hold(events, "turn", 0.01)) == "turn"
    assert await upkeep == "extraction"
    assert "extraction cancelled" not in events


async def test_a_chat_waiter_that_gives_up_lets_upkeep_go_on():
    gate, events, started = Gate(1), [], asyncio.Event()
    first = asyncio.create_task(gate.run(lambda: hold(events, "turn 1", 0.05, started)))
    await started.wait()
    waiting = asyncio.create_task(gate.run(lambda: hold(events, "turn 2", 0.01)))
    upkeep = asyncio.create_task(gate.run(lambda: hold(events, "embedding", 0.01), upkeep=True))
    await asyncio.sleep(0.01)
    waiting.cancel()
    await asyncio.gather(first, upkeep)
    assert events == ["turn 1 starts", "turn 1 ends", "embedding starts", "embedding ends"]
