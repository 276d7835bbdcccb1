"""Photos, animations and documents: uploads, Telegram's file ids, and what a message shows of them.

A bot sends a file once as a multipart upload and afterwards by the ``file_id`` Telegram
answered with. The emulator keeps every upload's bytes (for tests and the browser
playground), answers a photo with two sizes (as Telegram answers with several; it does not
resize, so both serve the uploaded bytes) and checks a resent id exists and is of the kind
asked for, with Telegram's wording when it is not.
"""

from __future__ import annotations

import io
import itertools
import math
import secrets
from dataclasses import dataclass
from typing import Any

import av
from PIL import Image, UnidentifiedImageError

from .errors import bad_request

MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_PHOTO_SIDES = 10_000  # width + height
MAX_ANIMATION_BYTES = 50 * 1024 * 1024
THUMBNAIL_SIDE = 90
_WRONG_FILE = "wrong file identifier/HTTP URL specified"
# The prefixes Telegram's ids of each kind start with.
_ID_PREFIX = {
    "photo": "AgACAgIAAxkDAAI",
    "animation": "CgACAgIAAxkDAAI",
    "document": "BQACAgIAAxkDAAI",
}
_KIND_NAMES = {"photo": "Photo", "animation": "Animation", "document": "Document"}
MAX_DOCUMENT_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Upload:
    """A file part of a multipart request, as the server decoded it."""

    filename: str | None
    content_type: str | None
    data: bytes

    def __repr__(self) -> str:  # the request log shows uploads without their bytes
        return f"Upload({self.filename!r}, {self.content_type!r}, {len(self.data)} bytes)"


@dataclass(frozen=True, slots=True)
class StoredFile:
    """One file id: the bytes it serves and the fields of its Bot API object."""

    file_id: str
    file_unique_id: str
    kind: str  # "photo", "animation" or "document"
    data: bytes
    mime_type: str
    width: int
    height: int
    duration: int = 0
    file_name: str | None = None

    def photo_size(self) -> dict[str, Any]:
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "width": self.width,
            "height": self.height,
            "file_size": len(self.data),
        }

    def animation(self) -> dict[str, Any]:
        data = {
            **self.photo_size(),
            "duration": self.duration,
            "mime_type": self.mime_type,
        }
        if self.file_name:
            data["file_name"] = self.file_name
        return data

    def document(self) -> dict[str, Any]:
        data = {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "mime_type": self.mime_type,
            "file_size": len(self.data),
        }
        if self.file_name:
            data["file_name"] = self.file_name
        return data


def message_media(kind: str, files: list[StoredFile]) -> dict[str, Any]:
    """The fields a message shows its media in: a photo's sizes, smallest first; a document;
    or an animation, which Telegram also shows as a document (a Document has no size or
    length of its own)."""
    if kind == "photo":
        return {"photo": [f.photo_size() for f in files]}
    if kind == "document":
        return {"document": files[0].document()}
    return {"animation": files[0].animation(), "document": files[0].document()}


class Files:
    """Every file the bot uploaded, by file id."""

    def __init__(self) -> None:
        self.by_id: dict[str, StoredFile] = {}
        self._serial = itertools.count(1)

    def _ids(self, kind: str) -> tuple[str, str]:
        serial = next(self._serial)
        tail = secrets.token_urlsafe(12)
        return f"{_ID_PREFIX[kind]}{serial}{tail}", f"AQAD{serial}{tail[:6]}"

    def resolve(self, params: dict[str, Any], name: str, kind: str) -> list[StoredFile]:
        """The file(s) a send refers to: a fresh upload, ``attach://part`` or a file id.

        A photo gives its sizes, smallest first; an animation one file.
        """
        value = params.get(name)
        if isinstance(value, str) and value.startswith("attach://"):
            value = params.get(value.removeprefix("attach://"))
        if isinstance(value, Upload):
            return self._upload(value, kind)
        if not isinstance(value, str) or not value:
            raise bad_request(f"there is no {name} in the request")
        known = self.by_id.get(value)
        if known is None:
            raise bad_request(_WRONG_FILE)
        if known.kind != kind:
            raise bad_request(
                f"can't use file of type {_KIND_NAMES[known.kind]} as {_KIND_NAMES[kind]}"
            )
        if kind == "photo":
            return [f for f in self.by_id.values() if f.data is known.data and f.kind == "photo"]
        return [known]

    def _upload(self, upload: Upload, kind: str) -> list[StoredFile]:
        if kind == "photo":
            width, height = _photo_size(upload.data)
            sizes = []
            scale = THUMBNAIL_SIDE / max(width, height)
            if scale < 1:
                sizes.append((max(1, round(width * scale)), max(1, round(height * scale))))
            sizes.append((width, height))
            stored = []
            for w, h in sizes:
                file_id, unique = self._ids("photo")
                stored.append(StoredFile(file_id, unique, "photo", upload.data, "image/png", w, h))
        elif kind == "document":
            if len(upload.data) > MAX_DOCUMENT_BYTES:
                raise bad_request("file is too big")
            file_id, unique = self._ids("document")
            mime_type = upload.content_type or "application/octet-stream"
            stored = [
                StoredFile(
                    file_id, unique, "document", upload.data, mime_type, 0, 0, 0, upload.filename
                )
            ]
        else:
            width, height, duration = _animation_size(upload.data)
            file_id, unique = self._ids("animation")
            stored = [
                StoredFile(
                    file_id,
                    unique,
                    "animation",
                    upload.data,
                    upload.content_type or "video/mp4",
                    width,
                    height,
                    duration,
                    upload.filename,
                )
            ]
        for item in stored:
            self.by_id[item.file_id] = item
        return stored


def _photo_size(data: bytes) -> tuple[int, int]:
    if len(data) > MAX_PHOTO_BYTES:
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError):
        raise bad_request("IMAGE_PROCESS_FAILED") from None
    if width + height > MAX_PHOTO_SIDES or max(width, height) > 20 * min(width, height):
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    return width, height


def _animation_size(data: bytes) -> tuple[int, int, int]:
    if len(data) > MAX_ANIMATION_BYTES:
        raise bad_request("file is too big")
    try:
        with av.open(io.BytesIO(data)) as container:
            stream = container.streams.video[0]
            seconds = (
                float(stream.duration * stream.time_base)
                if stream.duration is not None and stream.time_base is not None
                else (container.duration or 0) / 1_000_000
            )
            return stream.width, stream.height, math.ceil(seconds)
    except (av.FFmpegError, IndexError):
        raise bad_request("wrong type of the web page content") from None
