# GENERATED from _async/desktop.py by tools/unasync.py: do not edit.
"""The screen of a desktop box (created with ``image="desktop"``): screenshots, mouse,
keyboard, apps and windows. Coordinates are screen pixels from the top left."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from .._base import clean, seg
from ..types import DesktopActionResult, DesktopInfo, DesktopRecording, DesktopWindow
from .transport import Http


class BoxDesktop:
    """The box's screen: ``screenshot()``, ``left_click(x, y)``, ``write(text)``, ``press("ctrl+l")``..."""

    def __init__(self, http: Http, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}/desktop"

    def info(self) -> DesktopInfo:
        """Screen size, cursor, focused window, and the live view's and the browser's WebSocket paths."""
        return self._http.json("GET", self._base)

    def screenshot(self, *, scale: Optional[float] = None) -> bytes:
        """A PNG of the screen (with the pointer); ``scale`` 0.1-1 shrinks it."""
        query = None if scale is None else {"scale": str(scale)}
        return (self._http.send("GET", f"{self._base}/screenshot", query=query)).content

    def get_screen_size(self) -> Dict[str, int]:
        i = self.info()
        return {"width": i["width"], "height": i["height"]}

    def get_cursor_position(self) -> Dict[str, int]:
        return (self.info())["cursor"]

    def act(self, action: Dict[str, Any]) -> DesktopActionResult:
        """Any action of the API: {"type": "move"|"click"|"drag"|"scroll"|"type"|"key", ...}."""
        return self._http.json("POST", f"{self._base}/actions", json_body=clean(action))

    def move_mouse(self, x: int, y: int) -> DesktopActionResult:
        return self.act({"type": "move", "x": x, "y": y})

    def click(self, x: Optional[int] = None, y: Optional[int] = None, *, button: str = "left", double: bool = False) -> DesktopActionResult:
        return self.act({"type": "click", "x": x, "y": y, "button": button, "double": double or None})

    def left_click(self, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return self.click(x, y)

    def right_click(self, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return self.click(x, y, button="right")

    def double_click(self, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return self.click(x, y, double=True)

    def drag(self, start: Sequence[int], end: Sequence[int]) -> DesktopActionResult:
        return self.act({"type": "drag", "from": {"x": start[0], "y": start[1]}, "to": {"x": end[0], "y": end[1]}})

    def scroll(self, direction: str = "down", amount: int = 3, *, x: Optional[int] = None, y: Optional[int] = None) -> DesktopActionResult:
        return self.act({"type": "scroll", "direction": direction, "amount": amount, "x": x, "y": y})

    def write(self, text: str) -> DesktopActionResult:
        """Types text into the focused window."""
        return self.act({"type": "type", "text": text})

    def press(self, keys: Union[str, Sequence[str]]) -> DesktopActionResult:
        """Presses keys: "Return", "ctrl+l", or several combos ["ctrl+a", "Delete"]."""
        return self.act({"type": "key", "keys": keys if isinstance(keys, str) else " ".join(keys)})

    def launch(self, app: str, *args: str) -> Dict[str, Any]:
        """Starts a desktop entry ("box-browser", "xterm") or a program."""
        return self._http.json("POST", f"{self._base}/launch", json_body={"app": app, "args": list(args)})

    def open(self, target: str) -> Dict[str, Any]:
        """Opens a URL or a file with the default application."""
        return self._http.json("POST", f"{self._base}/open", json_body={"target": target})

    def windows(self) -> List[DesktopWindow]:
        return (self._http.json("GET", f"{self._base}/windows"))["data"]

    def focused_window(self) -> Optional[DesktopWindow]:
        return (self.info())["focused_window"]

    def start_recording(
        self, *, interval_ms: Optional[int] = None, scale: Optional[float] = None, max_seconds: Optional[int] = None
    ) -> DesktopRecording:
        """Starts recording the screen: a frame every ``interval_ms`` (default 1000) at ``scale`` (default 0.5), kept when it changed."""
        body = clean({"interval_ms": interval_ms, "scale": scale, "max_seconds": max_seconds})
        return self._http.json("POST", f"{self._base}/recordings", json_body=body)

    def stop_recording(self, recording_id: str) -> DesktopRecording:
        return self._http.json("POST", f"{self._base}/recordings/{seg(recording_id)}/stop")

    def recording(self, recording_id: str) -> DesktopRecording:
        """A recording with its frames (``at_ms``, ``image``) for playback."""
        return self._http.json("GET", f"{self._base}/recordings/{seg(recording_id)}")

    def recordings(self) -> List[DesktopRecording]:
        return (self._http.json("GET", f"{self._base}/recordings"))["data"]

    def recording_frame(self, recording_id: str, image: int) -> bytes:
        """One image of a recording (PNG)."""
        return (self._http.send("GET", f"{self._base}/recordings/{seg(recording_id)}/frames/{int(image)}")).content

    def delete_recording(self, recording_id: str) -> DesktopRecording:
        return self._http.json("DELETE", f"{self._base}/recordings/{seg(recording_id)}")
