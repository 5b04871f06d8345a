import io
import time
import uuid

import pytest

from box_desktop import (
    AuthenticationError,
    BadRequestError,
    Box,
    BoxApiError,
    BoxConnectionError,
    Client,
    ConflictError,
    NotFoundError,
)


def test_create_get_list_exec(client):
    box = client.boxes.create(name="py-one")
    assert isinstance(box, Box) and box.status == "running"
    assert client.boxes.get(box.id).name == "py-one"
    assert client.boxes.get("py-one").id == box.id
    assert [b.id for b in client.boxes.list(search="py-one").data] == [box.id]
    r = box.exec("echo hello; echo oops >&2; exit 3")
    assert (r.stdout, r.stderr, r.exit_code, r.status) == ("hello\n", "oops\n", 3, "failed")
    assert r.exec_id.startswith("exec_")
    assert box.exec(["printf", "%s|", "a b", "c"]).stdout == "a b|c|"
    assert box.exec("cat", stdin="from stdin").stdout == "from stdin"
    assert box.exec("echo $FOO", env={"FOO": "bar"}).stdout == "bar\n"


def test_exec_stream_order_and_streaming(client):
    box = client.boxes.create(name="py-stream")
    t0 = time.monotonic()
    events = []
    stream = box.exec_stream("for i in 1 2 3; do echo $i; echo e$i >&2; sleep 0.3; done")
    for ev in stream:
        events.append((ev, time.monotonic() - t0))
    end = time.monotonic() - t0
    assert "".join(f"{e.stream}:{e.data}" for e, _ in events) == "stdout:1\nstderr:e1\nstdout:2\nstderr:e2\nstdout:3\nstderr:e3\n"
    seqs = [e.seq for e, _ in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert events[0][1] < end - 0.5  # streamed as it happened, not buffered to the end
    outcome = stream.wait()
    assert (outcome.exit_code, outcome.status) == (0, "succeeded")
    assert stream.exec_id.startswith("exec_")


def test_files_bytes_text_streams(client):
    box = client.boxes.create(name="py-files")
    box.files.write("/root/a.txt", b"hi")
    assert box.files.read("/root/a.txt") == b"hi"
    box.files.write("/root/t.txt", "text é")
    assert box.files.read_text("/root/t.txt") == "text é"
    blob = bytes(i % 251 for i in range(300_000))
    assert box.files.write("/root/b.bin", io.BytesIO(blob), mode=0o600) == {"size_bytes": 300_000}
    assert b"".join(box.files.read_stream("/root/b.bin")) == blob
    box.files.write("/root/c.txt", (f"piece {i}\n".encode() for i in range(5)))
    assert box.files.read_text("/root/c.txt") == "".join(f"piece {i}\n" for i in range(5))
    assert {"a.txt", "b.bin", "c.txt"} <= {e["name"] for e in box.files.list("/root")}
    with pytest.raises(NotFoundError):
        box.files.read("/root/missing.txt")


def test_lifecycle_checkpoint_restore_fork(client):
    box = client.boxes.create(name="py-life")
    box.files.write("/root/state.txt", b"parent")
    assert box.pause().status == "paused"
    assert box.resume().status == "running"
    cp = box.checkpoint(name="cp1")
    assert cp["checkpoint_id"] in [c["checkpoint_id"] for c in box.checkpoints()]
    restored = client.checkpoints.restore(cp["checkpoint_id"], name="py-restored")
    assert restored.files.read("/root/state.txt") == b"parent"
    child = box.fork(name="py-child")
    assert child.id != box.id and child.files.read("/root/state.txt") == b"parent"
    assert any(e["box_id"] == child.id and e["parent_box_id"] == box.id for e in client.lineage())
    for b in (child, restored, box):
        assert b.terminate().status.startswith("terminat")


def test_restore_in_place_file_ops_and_own_inbox(client):
    """Issue 29: restore_to, files mkdir/move/remove, the user's own webhook inbox."""
    box = client.boxes.create(name="py-ops")
    box.files.write("/root/keep.txt", b"kept")
    cp = box.checkpoint(name="base")
    box.files.write("/root/later.txt", b"later")
    box.checkpoint(name="later")
    assert box.restore_to(cp["checkpoint_id"]).status == "running"
    assert box.info["on_checkpoint_id"] == cp["checkpoint_id"]  # the older one, not "later"
    assert box.refresh().info["on_checkpoint_id"] == cp["checkpoint_id"]
    assert box.files.read("/root/keep.txt") == b"kept"
    with pytest.raises(NotFoundError):
        box.files.read("/root/later.txt")
    assert box.files.mkdir("/root/d")["type"] == "directory"
    with pytest.raises(ConflictError):
        box.files.mkdir("/root/d")
    assert box.files.move("/root/keep.txt", "/root/d/k.txt")["name"] == "k.txt"
    with pytest.raises(ConflictError) as e:
        box.files.remove("/root/d")
    assert e.value.param == "recursive"
    assert box.files.remove("/root/d", recursive=True) == {"path": "/root/d", "deleted": True}
    mine = client.inboxes.mine()
    assert client.inboxes.mine()["inbox_id"] == mine["inbox_id"]
    assert mine["inbox_id"] in [i["inbox_id"] for i in client.inboxes.list()]
    assert client.inboxes.deliveries(inbox_id=mine["inbox_id"]) == []
    box.terminate()


def test_cron_volumes_policies(client):
    box = client.boxes.create(name="py-more")
    job = box.cron.create("*/5 * * * *", "echo tick")
    assert [j["id"] for j in box.cron.list()] == [job["id"]]
    assert box.cron.run(job["id"])["cron_id"] == job["id"]
    assert job["id"] in [j["id"] for j in client.cron_jobs()]
    box.cron.delete(job["id"])
    assert box.cron.list() == []

    vol = client.volumes.create(name="py-vol")
    vol.write("dir/x.txt", b"on the volume")
    assert vol.read_text("dir/x.txt") == "on the volume"
    assert [e["name"] for e in vol.list("dir")] == ["x.txt"]
    assert vol.id in [v.id for v in client.volumes.list().data]
    vol.remove("dir", recursive=True)
    assert vol.delete()["status"] == "deleted"

    pol = client.policies.create(name="py-pol", document={"example.com": {"rules": [{}]}})
    assert box.set_policy(pol["id"])["id"] == pol["id"]
    assert box.policy()["id"] == pol["id"]
    assert box.detach_policy() == {"box_id": box.id, "http_policy_id": None}
    assert client.policies.update(pol["id"], name="py-pol-2")["name"] == "py-pol-2"
    client.policies.delete(pol["id"])
    assert len(client.policies.presets()) > 0


def test_typed_errors_carry_the_envelope(client, service):
    with pytest.raises(NotFoundError) as nf:
        client.boxes.get("box_00000000-0000-4000-8000-000000000000")
    assert nf.value.status == 404 and nf.value.type == "not_found_error"
    assert nf.value.envelope["error"]["message"]
    with pytest.raises(BadRequestError) as bad:
        client.boxes.create(name="Not A Name")
    assert (bad.value.status, bad.value.type, bad.value.param) == (400, "invalid_request_error", "name")
    with Client(url=service[0], api_key="bxk_wrong", env={}) as anon:
        with pytest.raises(AuthenticationError) as auth:
            anon.whoami()
    assert isinstance(auth.value, BoxApiError) and auth.value.code == "invalid_api_key"
    with Client(url="http://127.0.0.1:9", api_key="k", env={}) as down:
        with pytest.raises(BoxConnectionError):
            down.whoami()


def test_idempotent_create(client):
    key = f"py-idem-{uuid.uuid4()}"
    a = client.boxes.create(name="py-idem", idempotency_key=key)
    b = client.boxes.create(name="py-idem", idempotency_key=key)
    assert a.id == b.id
    with pytest.raises(ConflictError) as c:
        client.boxes.create(name="py-idem-other", idempotency_key=key)
    assert c.value.code == "idempotency_key_reused"


def test_desktop_recordings(client):
    box = client.boxes.create(name="py-desk")
    with pytest.raises(BadRequestError) as e:
        box.desktop.start_recording(interval_ms=5)
    assert e.value.param == "interval_ms"
    rec = box.desktop.start_recording(interval_ms=200, scale=0.25)
    assert (rec["status"], rec["interval_ms"], rec["scale"]) == ("recording", 200, 0.25)
    with pytest.raises(ConflictError):
        box.desktop.start_recording()
    # this box has no screen (not the desktop image): the recording ends, saying why
    for _ in range(300):
        r = box.desktop.recording(rec["recording_id"])
        if r["status"] == "stopped":
            break
        time.sleep(0.1)
    assert r["stop_reason"].startswith("error: ") and "no desktop" in r["stop_reason"]
    assert [x["recording_id"] for x in box.desktop.recordings()] == [rec["recording_id"]]
    assert box.desktop.stop_recording(rec["recording_id"])["status"] == "stopped"
    with pytest.raises(NotFoundError):
        box.desktop.recording_frame(rec["recording_id"], 0)
    assert box.desktop.delete_recording(rec["recording_id"])["recording_id"] == rec["recording_id"]
    assert box.desktop.recordings() == []
