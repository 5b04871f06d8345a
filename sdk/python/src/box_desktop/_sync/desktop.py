# GENERATED from _async/desktop.py by tools/unasync.py: do not edit.
"""The screen of a desktop box (created with ``image="desktop"``): screenshots, mouse,
keyboard, apps and windows. Coordinates are screen pixels from the top left."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from .._base import clean, seg
from ..types import DesktopActionResult, DesktopInfo, DesktopWindow
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
