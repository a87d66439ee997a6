"""Data and logs on a terminal: application logs, JSON from jq, YAML, curl's
verbose exchange, a psql session, and text in Chinese, Japanese and Korean
among ASCII."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    NOUNS,
    Screen,
    blank,
    camel,
    clock,
    hexid,
    host,
    line,
    person,
    project,
    sentence,
    snake,
    stamp,
    token62,
    tricky,
    version,
)

__all__ = ["app_log", "cjk", "curl_verbose", "json_document", "psql_error", "yaml_config"]

_LEVELS = {
    "DEBUG": "36",
    "INFO": "32",
    "WARNING": "33",
    "WARN": "33",
    "ERROR": "31",
    "CRITICAL": "1;31",
}


def _message(rng: random.Random) -> str:
    return rng.choice(
        (
            f"{snake(rng)} finished in {rng.randint(1, 9000)} ms",
            f"retrying {rng.choice(NOUNS)} {rng.randint(1, 5)}/5 after "
            + rng.choice(("ConnectTimeout", "ReadTimeout", "HTTP 503")),
            f"{camel(rng)} cache miss for key={rng.choice(NOUNS)}:{token62(rng, 8)}",
            f"request_id={hexid(rng, 8)}-{hexid(rng, 4)} user_id={rng.randint(1, 99999)} "
            f"status={rng.choice((200, 201, 404, 500, 502))}",
            f"mounted {tricky(rng)} on /mnt/{rng.choice(NOUNS)} "
            f"(ro={rng.choice(('true', 'false'))})",
            f"{sentence(rng, rng.randint(3, 9)).lower()}",
            f"queue depth {rng.randint(0, 9999)} exceeds soft limit {rng.randint(100, 999)}",
            f"loaded config from /etc/{project(rng)}/{rng.choice(NOUNS)}.yaml "
            f"(version {version(rng)})",
        )
    )


def app_log(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """An application's log: Python logging, logfmt or nginx access lines,
    timestamps, coloured levels, logger names, ids and key=value pairs."""
    style = rng.randrange(3)
    name = project(rng)

    def lines() -> Iterator[Shown]:
        yield line(
            rng.choice(
                (
                    f"$ tail -f /var/log/{name}/app.log",
                    f"$ docker logs -f {name}-api",
                    f"$ journalctl -u {name} -f",
                )
            )
        )
        while True:
            level = rng.choice(("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR"))
            if style == 0:
                logger = f"{name}.{rng.choice(NOUNS)}"
                yield line(
                    f"{stamp(rng, millis=False)},{rng.randint(0, 999):03d} ",
                    (f"{level:<8}", _LEVELS[level]),
                    f" {logger}: {_message(rng)}",
                )
            elif style == 1:
                yield line(
                    f"time={stamp(rng, t='T')}Z ",
                    ("level=", "36"),
                    (level.lower(), _LEVELS[level]),
                    f' msg="{_message(rng)}" caller={snake(rng)}.go:{rng.randint(1, 900)}',
                )
            else:
                status = rng.choice((200, 200, 200, 301, 404, 499, 500, 502))
                path = f"/api/v{rng.randint(1, 3)}/{rng.choice(NOUNS)}s"
                if rng.random() < 0.5:
                    path += f"?id={rng.randint(1, 9999)}&q={rng.choice(NOUNS)}"
                yield line(
                    f"10.{rng.randint(0, 9)}.{rng.randint(0, 255)}.{rng.randint(2, 254)} - - "
                    f"[04/Mar/2025:{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                    f'{rng.randint(0, 59):02d} +0000] "{rng.choice(("GET", "POST", "PUT"))} '
                    f'{path} HTTP/1.1" ',
                    (str(status), "31" if status >= 500 else ""),
                    f' {rng.randint(0, 99999)} "-" "curl/{version(rng)}"',
                )

    screen = Screen(columns, rows)
    screen.add(*_take(lines(), rows))
    return screen.lines


def _take(lines: Iterator[Shown], count: int) -> list[Shown]:
    return [next(lines) for _ in range(count)]


def _document(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for _ in range(rng.randint(2, 6)):
        key = rng.choice((snake(rng, 2), rng.choice(NOUNS), f"{rng.choice(NOUNS)}Id", "id"))
        roll = rng.random()
        if roll < 0.2 and depth < 2:
            doc[key] = _document(rng, depth + 1)
        elif roll < 0.3 and depth < 2:
            doc[key] = [
                rng.choice(NOUNS) if rng.random() < 0.5 else rng.randint(0, 999)
                for _ in range(rng.randint(0, 4))
            ]
        elif roll < 0.5:
            doc[key] = rng.choice((rng.randint(-5, 99999), round(rng.random() * 1000, 2)))
        elif roll < 0.6:
            doc[key] = rng.choice((True, False, None))
        else:
            doc[key] = rng.choice(
                (
                    f"{rng.choice(NOUNS)}-{token62(rng, 6)}",
                    stamp(rng, t="T") + "Z",
                    f"https://api.{project(rng)}.io/v1/{rng.choice(NOUNS)}s/{rng.randint(1, 999)}",
                    person(rng),
                    f'say "{rng.choice(NOUNS)}" twice',
                    tricky(rng),
                    version(rng),
                )
            )
    return doc


def _jq(value: Any, indent: int, key: str | None, last: bool) -> Iterator[Shown]:
    """``value`` as ``jq .`` prints it: two spaces an indent, keys in bold
    blue, strings in green."""
    pad = "  " * indent
    head: list[tuple[str, str]] = [(pad, "")]
    if key is not None:
        head += [(json.dumps(key), "34;1"), (": ", "")]
    comma = [] if last else [(",", "")]
    if isinstance(value, dict) and value:
        yield line(*head, ("{", "1;39"))
        items = list(value.items())
        for n, (k, v) in enumerate(items):
            yield from _jq(v, indent + 1, k, n == len(items) - 1)
        yield line((pad, ""), ("}", "1;39"), *comma)
    elif isinstance(value, list) and value:
        yield line(*head, ("[", "1;39"))
        for n, item in enumerate(value):
            yield from _jq(item, indent + 1, None, n == len(value) - 1)
        yield line((pad, ""), ("]", "1;39"), *comma)
    else:
        text = json.dumps(value, ensure_ascii=False)
        yield line(*head, (text, "0;32" if isinstance(value, str) else ""), *comma)


def json_document(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """JSON pretty-printed by ``jq``, as an API answered ``curl``: nested
    objects and arrays, quotes, URLs, numbers, true/false/null."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            url = f"https://api.{project(rng)}.io/v1/{rng.choice(NOUNS)}s/{rng.randint(1, 999)}"
            doc = _document(rng)
            yield [line(f"$ curl -s {url} | jq ."), *_jq(doc, 0, None, True)]

    return Screen(columns, rows).fill(blocks())


def _yaml(rng: random.Random) -> list[Shown]:
    name = project(rng)
    image = f"ghcr.io/{name}/{rng.choice(NOUNS)}:{version(rng)}"
    out = [
        line(("apiVersion", "36"), ": apps/v1"),
        line(("kind", "36"), ": Deployment"),
        line(("metadata", "36"), ":"),
        line("  ", ("name", "36"), f": {name}-{rng.choice(NOUNS)}"),
        line("  ", ("labels", "36"), ":"),
        line("    ", ("app.kubernetes.io/name", "36"), f": {name}"),
        line("    ", ("app.kubernetes.io/version", "36"), f': "{version(rng)}"'),
        line(("spec", "36"), ":"),
        line("  ", ("replicas", "36"), f": {rng.randint(1, 12)}"),
        line("  ", ("template", "36"), ":"),
        line("    ", ("spec", "36"), ":"),
        line("      ", ("containers", "36"), ":"),
        line("        - ", ("name", "36"), f": {rng.choice(NOUNS)}"),
        line("          ", ("image", "36"), f": {image}"),
        line(
            "          ",
            ("args", "36"),
            f': ["--workers", "{rng.randint(1, 16)}", "--log-level='
            f'{rng.choice(("debug", "info"))}"]',
        ),
        line("          ", ("env", "36"), ":"),
    ]
    for _ in range(rng.randint(1, 5)):
        out += [
            line("            - ", ("name", "36"), f": {snake(rng, 2).upper()}"),
            line(
                "              ",
                ("value", "36"),
                f': "{rng.choice((tricky(rng), version(rng), str(rng.randint(0, 9999))))}"',
            ),
        ]
    out += [
        line("          ", ("resources", "36"), ":"),
        line(
            "            ",
            ("limits", "36"),
            f': {{cpu: "{rng.randint(100, 4000)}m", memory: {rng.choice((256, 512, 1024))}Mi}}',
        ),
        line("          ", ("# " + sentence(rng, 5), "32")),
        line("          ", ("command", "36"), ": |"),
        line(f"            exec python -m {name}.{snake(rng)} \\"),
        line(f"              --config /etc/{name}/config.yaml"),
    ]
    return out


def yaml_config(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """Kubernetes YAML (``kubectl get deploy -o yaml`` through a highlighter):
    nested keys in colour, lists, quoted values, flow maps, a ``|`` block."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            yield [line(f"$ kubectl get deploy {project(rng)} -o yaml | bat -l yaml -p")]
            yield _yaml(rng)
            yield [line("---")]

    return Screen(columns, rows).fill(blocks())


def curl_verbose(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``curl -v``: ``*`` lines of the connection and TLS, ``>`` request
    headers, ``<`` response headers (lone ``>`` and ``<`` lines between), the
    body, the connection left intact."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            domain = f"api.{project(rng)}.io"
            ip = ".".join(str(rng.randint(3, 223)) for _ in range(4))
            path = f"/v{rng.randint(1, 3)}/{rng.choice(NOUNS)}s?id={rng.randint(1, 9999)}"
            status = rng.choice((200, 401, 404, 429, 500, 502))
            body = (
                json.dumps(
                    {
                        "error": rng.choice(NOUNS) + "_failed",
                        "detail": sentence(rng, 5),
                        "request_id": hexid(rng, 16),
                    }
                )
                if status >= 400
                else json.dumps({"id": rng.randint(1, 9999), "name": rng.choice(NOUNS), "ok": True})
            )
            yield [
                line(f"$ curl -v https://{domain}{path}"),
                line(f"*   Trying {ip}:443..."),
                line(f"* Connected to {domain} ({ip}) port 443 (#0)"),
                line("* ALPN: offers h2,http/1.1"),
                line("* TLSv1.3 (OUT), TLS handshake, Client hello (1):"),
                line("* TLSv1.3 (IN), TLS handshake, Server hello (2):"),
                line("* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384"),
                line("* Server certificate:"),
                line(f"*  subject: CN={domain}"),
                line(f"*  expire date: Jun {rng.randint(1, 28):>2} 23:59:59 2025 GMT"),
                line("*  issuer: C=US; O=Let's Encrypt; CN=R3"),
                line(f"> GET {path} HTTP/2"),
                line(f"> Host: {domain}"),
                line("> User-Agent: curl/7.88.1"),
                line("> Accept: */*"),
                line(">"),
                line(f"< HTTP/2 {status}"),
                line("< content-type: application/json; charset=utf-8"),
                line(f"< x-request-id: {hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}"),
                line(f"< content-length: {len(body)}"),
                line("<"),
                line(body),
                line(f"* Connection #0 to host {domain} left intact"),
            ]

    return Screen(columns, rows).fill(blocks())


# --- a database's prompt ---------------------------------------------------------------


def psql_error(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A psql session: queries at the ``db=>`` prompt, result tables with
    ``-+-`` rules and ``(N rows)``, and errors with ``ERROR:``, ``LINE 1:``
    and a caret under the offending word, ``HINT:``."""
    db = f"{project(rng)}_dev"

    def result() -> list[Shown]:
        columns_ = ["id", "email", "status", "created_at"]
        data = [
            [
                str(rng.randint(1, 99999)),
                f"{rng.choice(NOUNS)}{rng.randint(1, 99)}@example.com",
                rng.choice(("active", "pending", "disabled")),
                f"2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)} {clock(rng)}+00",
            ]
            for _ in range(rng.randint(1, 12))
        ]
        widths = [max(len(c), *(len(r[i]) for r in data)) for i, c in enumerate(columns_)]
        out = [
            line(
                f"{db}=> SELECT id, email, status, created_at FROM users WHERE status <> "
                f"'deleted' LIMIT {len(data)};"
            ),
            line(" " + " | ".join(c.center(widths[i]) for i, c in enumerate(columns_))),
            line("-" + "-+-".join("-" * w for w in widths) + "-"),
        ]
        for row in data:
            cells = [
                row[i].rjust(widths[i]) if i == 0 else row[i].ljust(widths[i])
                for i in range(len(row))
            ]
            out.append(line(" " + " | ".join(cells)))
        out.append(line(f"({len(data)} row{'s' if len(data) > 1 else ''})"))
        return [*out, blank()]

    def error() -> list[Shown]:
        good = rng.choice(("status", "created_at", "email", "tenant_id"))
        bad = good[:-1] + good[-1] * 2 if rng.random() < 0.5 else good.replace("_", "")
        query = (
            f"SELECT id, email FROM users WHERE {bad} = '{rng.choice(NOUNS)}' "
            f"AND created_at > now() - interval '{rng.randint(1, 30)} days';"
        )
        if len(f"{db}=> {query}") > columns:
            query = f"SELECT id FROM users WHERE {bad} = {rng.randint(1, 9)};"
        at = query.index(bad)
        prefix = "LINE 1: "
        shown, caret = query, len(prefix) + at
        if len(prefix + query) > columns:
            # psql shows a window of a long line around the error, with "...".
            start = max(0, at - 20)
            end = min(len(query), start + columns - len(prefix) - 6)
            shown = (
                ("..." if start else "") + query[start:end] + ("..." if end < len(query) else "")
            )
            caret = len(prefix) + (3 if start else 0) + at - start
        return [
            line(f"{db}=> {query}"),
            line(("ERROR:", "31"), f'  column "{bad}" does not exist'),
            line(prefix + shown),
            line(" " * caret + "^"),
            line(("HINT:", "33"), f'  Perhaps you meant to reference the column "users.{good}".'),
            blank(),
        ]

    def blocks() -> Iterator[list[Shown]]:
        yield [
            line(f"$ psql -h db-primary -U {db.split('_')[0]} {db}"),
            line("psql (15.6 (Debian 15.6-0+deb12u1))"),
            line('Type "help" for help.'),
            blank(),
        ]
        while True:
            yield rng.choice((result, error, error))()

    return Screen(columns, rows).fill(blocks())


# --- CJK -------------------------------------------------------------------------------

_JAPANESE = [
    "修正: ログイン時のセッション切れを直す",
    "設定ファイルが見つかりません",
    "ビルドに成功しました",
    "データベースへの接続がタイムアウトしました",
    "テストを追加",
    "ユーザー一覧の表示を高速化",
    "警告: ディスク容量が不足しています",
    "処理が完了しました",
    "認証トークンの有効期限切れ",
]
_CHINESE = [
    "订单已创建",
    "用户登录失败",
    "配置文件加载完成",
    "数据库连接超时",
    "修复支付回调的重复处理",
    "新增导出报表功能",
    "内存使用率过高",
    "文件上传成功",
    "会议记录",
    "报告书",
]
_KOREAN = [
    "디스크 사용량이 90%를 초과했습니다",
    "배포가 완료되었습니다",
    "사용자 인증 실패",
    "설정을 불러오는 중",
    "데이터",
    "로그인 세션 만료",
]


def cjk(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """Chinese, Japanese and Korean among ASCII, each CJK character two
    cells wide: commit subjects, log messages, file names, errors."""

    def lines() -> Iterator[Shown]:
        while True:
            phrase = rng.choice(_JAPANESE + _CHINESE + _KOREAN)
            kind = rng.randrange(5)
            if kind == 0:
                yield line((hexid(rng, 7), "33"), f" {phrase} (#{rng.randint(10, 999)})")
            elif kind == 1:
                level = rng.choice(("INFO", "WARN", "ERROR"))
                yield line(
                    f"{stamp(rng)} ",
                    (f"{level:<5}", _LEVELS[level]),
                    f" [{rng.choice(_CHINESE)}] {phrase}, user_id={rng.randint(1, 99999)}",
                )
            elif kind == 2:
                ext = rng.choice(("pdf", "docx", "csv", "xlsx", "md"))
                yield line(
                    f"-rw-r--r-- 1 me me {rng.randint(100, 999999):>7} Mar {rng.randint(1, 28):>2} "
                    f"{rng.randint(10, 23)}:{rng.randint(10, 59)} {rng.choice(_CHINESE)}_"
                    f"{rng.randint(2019, 2025)}.{ext}"
                )
            elif kind == 3:
                yield line(
                    ("エラー:", "1;31"), f" {phrase} ({tricky(rng)}, code={rng.randint(1, 255)})"
                )
            else:
                yield line(f'{host(rng)}$ echo "{phrase}" | wc -c')

    screen = Screen(columns, rows)
    screen.add(*_take(lines(), rows))
    return screen.lines
