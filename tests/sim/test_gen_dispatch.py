"""The dispatch modules are what the kernel modules' ``HOOKS`` give (qosmodels.sim._gen_dispatch)."""

import types

import pytest

from qosmodels.sim import _gen_dispatch as gen
from qosmodels.sim._kernels import dispatch
from qosmodels.sim._kernels.queues import droptail, pie, red
from qosmodels.sim._kernels.sources import dctcp, reno
from qosmodels.sim.contract import HOOKS


@pytest.mark.parametrize("file", ["dispatch", "dispatch_edges"])
def test_written_modules_are_what_the_hooks_give(file):
    text = (gen._ROOT / f"{file}.py").read_text()
    assert text == gen.generate(file), (
        f"qosmodels/sim/_kernels/{file}.py differs from what the kernel modules' HOOKS give: "
        f"run python -m qosmodels.sim._gen_dispatch")
    assert gen.main(["--check"]) == 0


def test_every_kernel_module_is_registered_by_being_there():
    mods = gen.kernel_modules()
    assert [m.CODE for m in mods["queue"]] == sorted(m.CODE for m in mods["queue"])
    names = {f"{gen.PACKAGES[o]}.{m.__name__.rsplit('.', 1)[1]}" for o in mods for m in mods[o]}
    from qosmodels.sim._kernels.dispatch_edges import EDGES

    assert names == set(dispatch.QUEUES) | set(dispatch.SOURCES) | set(EDGES)
    for owner, ms in mods.items():
        own = {h.name for h in HOOKS if h.owner == owner}
        for m in ms:
            assert m.HOOKS and set(m.HOOKS) <= own, m.__name__


def test_shared_handlers_share_one_branch_and_come_in_code_order():
    text = gen.generate("dispatch")
    assert ("if code == reno.CODE or code == vegas.CODE or code == web.CODE "
            "or code == dctcp.CODE:\n        return reno.send_limit(S, f)") in text
    assert ("if code == reno_rack.CODE or code == reno_sack.CODE:\n"
            "        return reno.send_limit_sack(S, f)") in text
    assert text.index("return reno.send_limit(S, f)") < text.index("return reno.send_limit_sack")
    assert ("or code == prague.CODE or code == reno_rack.CODE or code == cubic_rack.CODE\n"
            "            or code == reno_sack.CODE or code == cubic_sack.CODE):\n"
            "        return reno.window(S, f)") in text
    admit = text[text.index("def queue_admit"):text.index("@handler\ndef queue_store")]
    assert admit.index("droptail.CODE") < admit.index("red.CODE") < admit.index("pie.CODE")
    assert "return ered.admit(S, code, l, p)" in admit  # RED and ERED: one copy
    assert admit.rstrip().endswith("return -1")


def _with_hooks(monkeypatch, mod, hooks):
    monkeypatch.setattr(mod, "HOOKS", hooks)
    return gen.generate("dispatch")


def test_a_handler_is_called_with_its_own_parameters(monkeypatch):
    def admit(S, p):  # a subset of queue_admit's, in its own order
        return -1

    admit.__module__ = droptail.__name__
    text = _with_hooks(monkeypatch, droptail, {"queue_admit": admit})
    assert "if code == droptail.CODE:\n        return droptail.admit(S, p)" in text


def test_refuses_a_handler_that_needs_what_the_hook_does_not_pass(monkeypatch):
    def admit(S, l, p, weight):
        return -1

    admit.__module__ = droptail.__name__
    with pytest.raises(ValueError, match=r"droptail.HOOKS\['queue_admit'\]: .*admit takes "
                                         r"\['weight'\], which queue_admit"):
        _with_hooks(monkeypatch, droptail, {"queue_admit": admit})


def test_refuses_a_handler_outside_the_kernel_modules(monkeypatch):
    def admit(S, l, p):
        return -1

    with pytest.raises(ValueError, match=r"is not in a kernel module"):
        _with_hooks(monkeypatch, pie, {**pie.HOOKS, "queue_admit": admit})


def test_refuses_two_modules_with_one_code(monkeypatch):
    monkeypatch.setattr(red, "CODE", droptail.CODE)
    with pytest.raises(ValueError, match=r"queue kernel modules share CODE \[0\]"):
        gen.kernel_modules()


def test_a_string_names_a_handler_whose_import_would_make_a_circle():
    assert red.HOOKS["queue_admit"] == "queues.ered.admit"
    where, name, params = gen._target(red, "queue_admit", red.HOOKS["queue_admit"])
    assert (where.rsplit(".", 2)[1:], name, params) == (["queues", "ered"], "admit",
                                                         ("S", "code", "l", "p"))
    assert gen._target(dctcp, "source_ack", reno.on_ack)[:2] == (reno.__name__, "on_ack")


def test_contract_refuses_hooks_of_another_owner():
    from qosmodels.sim.contract import check_module

    fake = types.SimpleNamespace(__name__="fake", CODE=99, PARAMS=(),
                                 HOOKS={"source_ack": None})
    assert any("HOOKS" in p for p in check_module(fake, "queue"))
    fake.HOOKS = {"queue_admit": None}
    assert not any("HOOKS" in p for p in check_module(fake, "queue"))
