import asyncio

import pytest

from box_desktop import AsyncBox, AsyncClient, NotFoundError


def run(coro):
    return asyncio.run(coro)


def test_async_client_same_surface(service):
    async def main():
        async with AsyncClient(url=service[0], api_key=service[1], env={}) as client:
            box = await client.boxes.create(name="py-async")
            assert isinstance(box, AsyncBox) and box.status == "running"
            r = await box.exec("echo hello")
            assert (r.stdout, r.exit_code) == ("hello\n", 0)
            seen = []
            stream = box.exec_stream("for i in 1 2 3; do echo $i; done")
            async for ev in stream:
                seen.append((ev.stream, ev.data))
            assert "".join(d for _, d in seen) == "1\n2\n3\n" and {s for s, _ in seen} == {"stdout"}
            assert (await stream.wait()).exit_code == 0
            await box.files.write("/root/a.txt", b"hi")
            assert await box.files.read("/root/a.txt") == b"hi"
            chunks = [c async for c in box.files.read_stream("/root/a.txt")]
            assert b"".join(chunks) == b"hi"
            child = await box.fork(name="py-async-child")
            assert await child.files.read_text("/root/a.txt") == "hi"
            assert (await client.boxes.get("py-async")).id == box.id
            with pytest.raises(NotFoundError):
                await client.boxes.get("py-async-none")
            await child.terminate()
            await box.terminate()

    run(main())
