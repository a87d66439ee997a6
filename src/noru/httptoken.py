"""The per-install token that `noru mcp --http` asks of every request.

Loopback is reachable by every process on the machine: another user, a
sandboxed app that shares the network but not the files, a container on the
host network. The data dir is 0700, so only the person (and what runs as
them) can read this token, and only who can read it gets an answer.

- The token is ``noru_`` and 32 bytes from ``secrets`` (256 bits), URL-safe
  base64: 48 visible ASCII characters, in ``http-token`` in the data dir
  (0600), written atomically and durably (``noru.atomic``) under a lock on the data dir,
  so two of the person's commands making it at once make one.
- It is made only on the person's side, never by a request: by `noru token
  show`, `noru config CLIENT --http`, and by `noru mcp --http` at its start,
  before it listens (``ensure``); `noru token rotate` replaces it (``rotate``).
- ``Watch`` is what the server holds: it reads the file again only when the
  file changed (its inode, size, times: a chmod too), so a rotation reaches a running
  server at its next request, and it compares in constant time. A file that
  is missing, damaged, someone else's or open to others is no token at all:
  every request is refused (fail closed).

The token is never logged and never part of an answer; only the person's
`noru token show` prints it.
"""

from __future__ import annotations

import fcntl
import hmac
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from noru.atomic import replace_durably
from noru.errors import DataDirError

__all__ = [
    "FILE",
    "PATTERN",
    "Loaded",
    "Verdict",
    "Watch",
    "ensure",
    "load",
    "new_token",
    "rotate",
    "token_path",
]

FILE = "http-token"
PREFIX = "noru_"
PATTERN = re.compile(r"noru_[A-Za-z0-9_-]{43}")


def token_path(home: Path) -> Path:
    return home / FILE


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Loaded:
    """The token, or why there is none usable: ``problem`` None with no
    ``value`` means it was never made."""

    value: str | None
    problem: str | None = None


def load(home: Path) -> Loaded:
    """The token as the file holds it, refused (``problem``) when the file is
    not this user's alone or does not hold one token."""
    path = token_path(home)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return Loaded(None)
    except OSError as exc:
        return Loaded(None, f"{FILE} cannot be read ({exc.strerror})")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Loaded(None, f"{FILE} is not a file")
        if info.st_uid != os.geteuid():
            return Loaded(None, f"{FILE} belongs to another user")
        if stat.S_IMODE(info.st_mode) & 0o077:
            mode = stat.S_IMODE(info.st_mode)
            return Loaded(
                None, f"{FILE} is open to others (mode {mode:04o}): it may have been read"
            )
        raw = os.read(fd, 256)
    except OSError as exc:
        return Loaded(None, f"{FILE} cannot be read ({exc.strerror})")
    finally:
        os.close(fd)
    text = raw.decode("ascii", errors="replace").strip()
    if not PATTERN.fullmatch(text):
        return Loaded(None, f"{FILE} is damaged (it holds no Noru token)")
    return Loaded(text)


class _Locked:
    """An exclusive lock on the data dir, for making or replacing the token."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.fd = -1

    def __enter__(self) -> None:
        try:
            self.home.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.fd = os.open(self.home, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise DataDirError(f"cannot open the data dir {self.home}: {exc.strerror}") from exc
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)  # closing releases the lock


def _write(home: Path, token: str) -> None:
    path = token_path(home)
    try:
        replace_durably(path, token + "\n", mode=0o600)
    except OSError as exc:
        raise DataDirError(f"cannot write {path}: {exc.strerror}") from exc


def ensure(home: Path) -> str:
    """The token, made now if there is none yet. For the person's side only.
    A token file that is there but unusable is not replaced: that is the
    person's decision (`noru token rotate`); ``DataDirError`` says why."""
    with _Locked(home):
        found = load(home)
        if found.value is not None:
            return found.value
        if found.problem is not None:
            raise DataDirError(f"{found.problem}; `noru token rotate` makes a new one")
        token = new_token()
        _write(home, token)
        return token


def rotate(home: Path) -> str:
    """Replace the token (whatever the file held) with a new one."""
    with _Locked(home):
        token = new_token()
        _write(home, token)
        return token


@dataclass(frozen=True)
class Verdict:
    """A request's credential checked: ``refused`` is None when it carries the
    token, else why not ("missing", "wrong", "unavailable": the server has no
    usable token). ``generation`` counts the tokens this ``Watch`` has seen."""

    refused: str | None
    generation: int


class Watch:
    """The current token for a long-running server, read again only when its
    file changes; every request is checked against it (``check``)."""

    def __init__(self, home: Path) -> None:
        self.path = token_path(home)
        self.home = home
        self.generation = 0
        self.problem: str | None = None
        self._seen: tuple[int, ...] | None = None
        self._token: bytes | None = None

    def current(self) -> bytes | None:
        try:
            info = os.stat(self.path)
        except OSError:
            seen = None
        else:
            # ctime too: a chmod or chown changes nothing else, and decides.
            seen = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        if seen is None or seen != self._seen:
            found = load(self.home)
            token = found.value.encode("ascii") if found.value is not None else None
            if token != self._token:
                self.generation += 1
            self._token, self._seen = token, seen
            self.problem = found.problem or (None if token else f"no {FILE} yet")
        return self._token

    def check(self, authorization: list[bytes]) -> Verdict:
        """``authorization``: the values of every Authorization header sent."""
        token = self.current()
        if token is None:
            return Verdict("unavailable", self.generation)
        if len(authorization) != 1:
            return Verdict("missing" if not authorization else "wrong", self.generation)
        scheme, _, presented = authorization[0].strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return Verdict("missing", self.generation)
        if not hmac.compare_digest(presented.strip(), token):
            return Verdict("wrong", self.generation)
        return Verdict(None, self.generation)
