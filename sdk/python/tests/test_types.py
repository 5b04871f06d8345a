"""box_desktop.types (printed from the contract by tools/gen-types.ts) describes what the
service really answers: every answer below conforms to its TypedDict, key for key."""

import typing

import pytest

from box_desktop import types as T


def conforms(value, tp, where="answer"):
    """Checks `value` against a type of box_desktop.types; raises AssertionError naming the place."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is typing.Any:
        return
    if origin is typing.Union:
        for alt in args:
            try:
                conforms(value, alt, where)
                return
            except AssertionError:
                pass
        raise AssertionError(f"{where}: {value!r} is none of {tp}")
    if origin is typing.Literal:
        assert value in args, f"{where}: {value!r} not in {args}"
        return
    if origin in (list, typing.List):
        assert isinstance(value, list), f"{where}: not a list: {value!r}"
        for i, v in enumerate(value):
            conforms(v, args[0], f"{where}[{i}]")
        return
    if origin in (dict, typing.Dict):
        assert isinstance(value, dict), f"{where}: not a dict: {value!r}"
        for k, v in value.items():
            conforms(v, args[1], f"{where}.{k}")
        return
    if typing.is_typeddict(tp):
        assert isinstance(value, dict), f"{where}: not a dict: {value!r}"
        hints = typing.get_type_hints(tp)
        missing = tp.__required_keys__ - value.keys()
        assert not missing, f"{where}: missing {sorted(missing)}"
        unknown = value.keys() - hints.keys()
        assert not unknown, f"{where}: keys the types do not know: {sorted(unknown)}"
        for k, v in value.items():
            conforms(v, hints[k], f"{where}.{k}")
        return
    if tp is type(None):
        assert value is None, f"{where}: {value!r} is not None"
        return
    if tp is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where}: {value!r} is not a number"
        return
    assert isinstance(value, tp) and not (tp is int and isinstance(value, bool)), f"{where}: {value!r} is not {tp.__name__}"


def test_the_checker_can_fail():
    with pytest.raises(AssertionError, match="missing"):
        conforms({"checkpoint_id": "x"}, T.ForkResult)
    with pytest.raises(AssertionError, match="not in"):
        conforms("asleep", T.BoxStatus)
    with pytest.raises(AssertionError, match="do not know"):
        conforms({"id": "x", "deleted": True, "extra": 1}, T.ContextDeleted)


def test_answers_conform_to_the_generated_types(client):
    box = client.boxes.create(name="py-types")
    try:
        conforms(box.info, T.BoxInfo, "BoxInfo")
        box.exec("echo hi > /root/t.txt")
        conforms(box.execs(), typing.List[T.ExecInfo], "execs")
        conforms(box.files.write("/root/u.txt", b"x"), T.FileWriteResult, "FileWriteResult")
        conforms(client.whoami(), T.Whoami, "Whoami")
        fork = client.boxes.get(box.id)
        conforms(fork.info, T.BoxInfo, "BoxInfo (get)")
        conforms(client.lineage(), typing.List[T.LineageEdge], "lineage")
        conforms(client.policies.presets(), typing.List[T.PolicyPreset], "presets")
        conforms(box.egress_log(), typing.List[T.EgressLogRow], "egress_log")
    finally:
        box.terminate()
