"""The screen of a desktop box (created with ``image="desktop"``): screenshots, mouse,
keyboard, apps and windows. Coordinates are screen pixels from the top left."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from .._base import clean, seg
from ..types import DesktopActionResult, DesktopInfo, DesktopRecording, DesktopWindow
from .transport import AsyncHttp


class AsyncBoxDesktop:
    """The box's screen: ``screenshot()``, ``left_click(x, y)``, ``write(text)``, ``press("ctrl+l")``..."""

    def __init__(self, http: AsyncHttp, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}/desktop"

    async def info(self) -> DesktopInfo:
        """Screen size, cursor, focused window, and the live view's and the browser's WebSocket paths."""
        return await self._http.json("GET", self._base)

    async def screenshot(self, *, scale: Optional[float] = None) -> bytes:
        """A PNG of the screen (with the pointer); ``scale`` 0.1-1 shrinks it."""
        query = None if scale is None else {"scale": str(scale)}
        return (await self._http.send("GET", f"{self._base}/screenshot", query=query)).content

    async def get_screen_size(self) -> Dict[str, int]:
        i = await self.info()
        return {"width": i["width"], "height": i["height"]}

    async def get_cursor_position(self) -> Dict[str, int]:
        return (await self.info())["cursor"]

    async def act(self, action: Dict[str, Any]) -> DesktopActionResult:
        """Any action of the API: {"type": "move"|"click"|"drag"|"scroll"|"type"|"key", ...}."""
        return await self._http.json("POST", f"{self._base}/actions", json_body=clean(action))

    async def move_mouse(self, x: int, y: int) -> DesktopActionResult:
        return await self.act({"type": "move", "x": x, "y": y})

    async def click(self, x: Optional[int] = None, y: Optional[int] = None, *, button: str = "left", double: bool = False) -> DesktopActionResult:
        return await self.act({"type": "click", "x": x, "y": y, "button": button, "double": double or None})

    async def left_click(self, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return await self.click(x, y)

    async def right_click(self, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return await self.click(x, y, button="right")

    async def double_click(self, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return await self.click(x, y, double=True)

    async def drag(self, start: Sequence[int], end: Sequence[int]) -> DesktopActionResult:
        return await self.act({"type": "drag", "from": {"x": start[0], "y": start[1]}, "to": {"x": end[0], "y": end[1]}})

    async def scroll(self, direction: str = "down", amount: int = 3, *, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return await self.act({"type": "scroll", "direction": direction, "amount": amount, "x": x, "y": y})

    async def write(self, text: str) -> DesktopActionResult:
        """Types text into the focused window."""
        return await self.act({"type": "type", "text": text})

    async def press(self, keys: Union[str, Sequence[str]]) -> DesktopActionResult:
        """Presses keys: "Return", "ctrl+l", or several combos ["ctrl+a", "Delete"]."""
        return await self.act({"type": "key", "keys": keys if isinstance(keys, str) else " ".join(keys)})

    async def launch(self, app: str, *args: str) -> Dict[str, Any]:
        """Starts a desktop entry ("box-browser", "xterm") or a program."""
        return await self._http.json("POST", f"{self._base}/launch", json_body={"app": app, "args": list(args)})

    async def open(self, target: str) -> Dict[str, Any]:
        """Opens a URL or a file with the default application."""
        return await self._http.json("POST", f"{self._base}/open", json_body={"target": target})

    async def windows(self) -> List[DesktopWindow]:
        return (await self._http.json("GET", f"{self._base}/windows"))["data"]

    async def focused_window(self) -> Optional[DesktopWindow]:
        return (await self.info())["focused_window"]

    async def start_recording(
        self, *, interval_ms: Optional[int] = None, scale: Optional[float] = None, max_seconds: Optional[int] = None
    ) -> DesktopRecording:
        """Starts recording the screen: a frame every ``interval_ms`` (default 1000) at ``scale`` (default 0.5), kept when it changed."""
        body = clean({"interval_ms": interval_ms, "scale": scale, "max_seconds": max_seconds})
        return await self._http.json("POST", f"{self._base}/recordings", json_body=body)

    async def stop_recording(self, recording_id: str) -> DesktopRecording:
        return await self._http.json("POST", f"{self._base}/recordings/{seg(recording_id)}/stop")

    async def recording(self, recording_id: str) -> DesktopRecording:
        """A recording with its frames (``at_ms``, ``image``) for playback."""
        return await self._http.json("GET", f"{self._base}/recordings/{seg(recording_id)}")

    async def recordings(self) -> List[DesktopRecording]:
        return (await self._http.json("GET", f"{self._base}/recordings"))["data"]

    async def recording_frame(self, recording_id: str, image: int) -> bytes:
        """One image of a recording (PNG)."""
        return (await self._http.send("GET", f"{self._base}/recordings/{seg(recording_id)}/frames/{int(image)}")).content

    async def delete_recording(self, recording_id: str) -> DesktopRecording:
        return await self._http.json("DELETE", f"{self._base}/recordings/{seg(recording_id)}")
