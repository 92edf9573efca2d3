"""qosmodels.mechanisms.droptail: the default queue discipline has no parameters."""

import dataclasses

import pytest

from qosmodels import Link
from qosmodels.mechanisms import DropTail, QueueSpec


def test_droptail_is_the_default_queue_with_one_class():
    q = DropTail()
    assert isinstance(q, QueueSpec)
    assert q.n_classes == 1
    assert (q.kind, q.kernel) == ("droptail", "queues.droptail")
    assert Link("a", "b", 1e6).queue == q
    assert dataclasses.fields(q) == ()


def test_droptail_takes_no_arguments():
    with pytest.raises(TypeError):
        DropTail(10)
