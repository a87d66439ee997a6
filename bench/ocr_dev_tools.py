"""Kinds of text for the sixth dev set of kinds (``TOOLS``): what a person asks of
a binary, a GPU, a name server, a certificate, a PHP program and a firewall, laid
out as objdump 2.40, nvidia-smi 535, dig 9.18, openssl 3.0, the PHP 8.2 CLI and
iptables 1.8.9 lay it out, tabs drawn as a terminal draws them. None is a held-out
kind or close to one: ``curl -v`` shows six ``*`` lines of a certificate (here all
of it, fields and hex), ``df``/``free`` an open table (nvidia-smi's ``MiB`` are
boxed), Go's panic two lines a frame (PHP's trace one, numbered).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from datetime import date, timedelta

from tests.terminal_shown import Shown
from tests.terminal_texts.build import NOUNS, Part, camel, clock, hexid, line, project, runs, snake

Kind = Callable[[random.Random, int, int], list[Shown]]


def _lines(text: str) -> list[Shown]:
    """Plain lines, tabs drawn to the next multiple of eight, trailing blanks left off."""
    return [line(row.expandtabs(8).rstrip()) for row in text.split("\n")]


# gcc -O0's code as ``bytes|instruction``, ``;`` between, in the runs it comes in: {v} a
# local at frame offset {d} ({b} its byte), {k} a number, {f} a function; R4 and R1 the
# bytes of an operand relative to the next instruction (a call, a string, a jump).
_CHUNKS = (
    "48 8b 45 {b}|mov {v},%rax;48 89 c7|mov %rax,%rdi;e8 R4|call {f}",
    "48 8d 05 R4|lea;48 89 c7|mov %rax,%rdi;e8 R4|call {f}",
    "83 45 {b} 01|addl $0x1,{v};83 7d {b} {k:02x}|cmpl $0x{k:x},{v};7e R1|jle",
    "e8 R4|call {f};89 45 {b}|mov %eax,{v};83 7d {b} 00|cmpl $0x0,{v};75 R1|jne",
    "48 8b 45 {b}|mov {v},%rax;0f b6 00|movzbl (%rax),%eax;3c {k:02x}|cmp $0x{k:x},%al;74 R1|je",
    "c7 45 {b} {k:02x} 00 00 00|movl $0x{k:x},{v};eb R1|jmp",
    "89 c2|mov %eax,%edx;8b 45 {b}|mov {v},%eax;01 d0|add %edx,%eax;89 45 {b}|mov %eax,{v}",
    "8b 45 {b}|mov {v},%eax;48 98|cltq;48 8d 14 c5 00 00 00 00|lea 0x0(,%rax,8),%rdx;"
    "48 8b 45 {b}|mov {v},%rax;48 01 d0|add %rdx,%rax;48 8b 00|mov (%rax),%rax",
    "48 c7 45 {b} 00 00 00 00|movq $0x0,{v}",
)
_ENTRY = "55|push %rbp;48 89 e5|mov %rsp,%rbp;48 83 ec {s:02x}|sub $0x{s:x},%rsp"
_ARGS = ("89 7d {b}|mov %edi,{v}", "48 89 75 {b}|mov %rsi,{v}")
_GUARD = ("64 48 8b 04 25 28 00 00 00|mov %fs:0x28,%rax;48 89 45 f8|mov %rax,-0x8(%rbp)",
          "48 8b 55 f8|mov -0x8(%rbp),%rdx;64 48 2b 14 25 28 00 00 00|sub %fs:0x28,%rdx;"
          "74 R1|je skip;e8 R4|call __stack_chk_fail@plt")  # fmt: skip
_EXIT = ("b8 00 00 00 00|mov $0x0,%eax;c9|leave;c3|ret", "8b 45 {b}|mov {v},%eax;c9|leave;c3|ret")
_PLT = ("puts", "printf", "malloc", "free", "strlen", "memcpy", "strcmp", "fopen", "fprintf")
_OPERAND = re.compile(r"(%\w+)|(\$?-?(?:0x)?[0-9a-f]+\b)|<([^+>]+)((?:\+0x[0-9a-f]+)?)>")
Instruction = tuple[int, list[int], str, str]  # address, bytes, mnemonic, operands


def _function(
    rng: random.Random, start: int, name: str, symbols: dict[str, int]
) -> tuple[list[Instruction], int]:
    """A function as gcc -O0 compiles it, laid out from ``start``; where it ends."""
    frame, guard = rng.choice((0x20, 0x30, 0x40, 0x60)), rng.random() < 0.3
    offsets, specs = rng.sample(range(0xC, frame + 1, 4), 3), []
    calls = [symbol for symbol in symbols if not symbol.startswith("__")]
    chunks = [_ENTRY, *_ARGS[: rng.randint(0, 2)], _GUARD[0] * guard]
    chunks += [*rng.choices(_CHUNKS, k=rng.randint(3, 7)), _GUARD[1] * guard, rng.choice(_EXIT)]
    for n, chunk in enumerate(chunk for chunk in chunks if chunk):
        d = offsets[n % 2] if chunk in _ARGS else rng.choice(offsets)
        values = {"d": d, "v": f"-0x{d:x}(%rbp)", "b": f"{256 - d:02x}", "s": frame}
        specs += chunk.format(**values, k=rng.randrange(1, 0x80), f=rng.choice(calls)).split(";")
    sizes = [len(s.split("|")[0].split()) + 3 * s.count("R4") for s in specs]
    addresses = [start + sum(sizes[:n]) for n in range(len(specs))]
    out: list[Instruction] = []
    for address, size, spec in zip(addresses, sizes, specs, strict=True):
        code, text = spec.split("|")
        mnemonic, _, operands = text.partition(" ")
        end, target = address + size, 0
        if "R1" in code:
            near = [a for a in addresses if -128 <= a - end <= 127 and a not in (address, end)]
            target = end + 5 if operands == "skip" else rng.choice(near)
            operands = f"{target:x} <{name}+0x{target - start:x}>"
        elif mnemonic == "call":
            target, operands = symbols[operands], f"{symbols[operands]:x} <{operands}>"
        elif "R4" in code:  # lea: a string, after _IO_stdin_used's four bytes
            target = 0x2004 + rng.randrange(0, 0x80, 4)
            at = f"{target:x} <_IO_stdin_used+0x{target - 0x2000:x}>"
            operands = f"0x{target - end:x}(%rip),%rax        # {at}"
        relative = (target - end) & 0xFFFFFFFF
        code = code.replace("R4", " ".join(f"{b:02x}" for b in relative.to_bytes(4, "little")))
        code = code.replace("R1", f"{relative & 0xFF:02x}")
        out.append((address, [int(b, 16) for b in code.split()], mnemonic, operands))
    return out, addresses[-1] + sizes[-1]


def _instruction(instruction: Instruction, colour: bool) -> list[Shown]:
    """An instruction's lines, seven bytes a line; with ``--disassembler-color=on``
    the mnemonic yellow, registers blue, numbers magenta, symbols green."""
    address, data, mnemonic, operands = instruction
    hexes = [f"{b:02x} " for b in data]
    head = f"{address:>8x}:\t{''.join(hexes[:7]):<21}\t".expandtabs(8)
    sgr = dict(zip("mrns", ("33", "34", "35", "32") if colour else ("",) * 4, strict=True))
    parts: list[Part] = [head, (f"{mnemonic:<6} " if operands else mnemonic, sgr["m"])]
    (code, _, comment), at = operands.partition("        #"), 0
    for match in _OPERAND.finditer(code):
        parts.append(code[at : match.start()])
        if match[3]:
            parts += ["<", (match[3], sgr["s"]), (match[4], sgr["n"]), ">"]
        else:
            parts.append((match[0], sgr["r" if match[1] else "n"]))
        at = match.end()
    parts += [code[at:], "        #" + comment if comment else ""]
    rest = [f"{address + n:>8x}:\t{''.join(hexes[n : n + 7])}" for n in range(7, len(data), 7)]
    return [line(*parts), *(_lines("\n".join(rest)) if rest else [])]


def objdump_disasm(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``objdump -d`` of a small PIE program: one function (``--disassemble=``)
    or the end of ``.text`` through ``tail``; in colour when asked."""
    colour, tail = rng.random() < 0.4, rows < 20 or rng.random() < 0.5  # a title is no code

    def run() -> list[Shown]:
        plt, name = rng.sample(_PLT, rng.randint(1, 5)), f"build/{project(rng)}"
        names = [*(snake(rng) for _ in range(rng.randint(1, 3))), "main"]
        symbols = {f"{f}@plt": 0x1030 + 0x10 * n for n, f in enumerate([*plt, "__stack_chk_fail"])}
        start, shown = 0x1139 + 0x10 * len(plt), rng.choice(names)  # past crt1's functions
        sections = (".text",) if tail else (".init", ".plt", ".plt.got", ".text")
        heads = "".join(f"\nDisassembly of section {s}:\n" for s in sections)
        out = _lines(f"\n{name}:     file format elf64-x86-64\n\n{heads}")
        for function in names:
            code, end = _function(rng, start, function, symbols)
            if tail or function == shown:
                out.append(line(f"{start:016x} <{function}>:"))
                out += [*(row for i in code for row in _instruction(i, colour)), line()]
            symbols[function], start = start, end  # the next may call it
        flags = " --disassembler-color=on" * colour
        if tail:  # main's last lines and what comes before, below the titles
            count = min(rng.choice((20, 30, 40)), len(out) - 7)
            command = f"objdump -d{flags} -j .text {name} | tail -n {count}"
            return [line(f"$ {command}"), *out[-count - 1 : -1]]
        out.append(line("Disassembly of section .fini:"))
        return [line(f"$ objdump -d{flags} --disassemble={shown} {name}"), *out]

    return runs(run, columns, rows, tail=tail)


# Cards: name, power cap (W), memory (MiB), in a server (no fan, ECC, persistence on).
_GPUS = (
    ("NVIDIA GeForce RTX 3090", 350, 24576, 0), ("NVIDIA GeForce RTX 4090", 450, 24564, 0),
    ("NVIDIA RTX A5000", 230, 24564, 0), ("Tesla V100-SXM2-16GB", 300, 16384, 1), ("Tesla T4", 70,
    15360, 1), ("NVIDIA A100-SXM4-40GB", 400, 40960, 1), ("NVIDIA A10", 150, 23028, 1),
    ("NVIDIA L4", 72, 23034, 1), ("NVIDIA H100 80GB HBM3", 700, 81559, 1),
)  # fmt: skip
_DESKTOP = ("/usr/lib/xorg/Xorg", "/usr/bin/gnome-shell", "/usr/lib/firefox-esr/firefox-esr")
_COMPUTE = ("python3", "/usr/bin/python3", "/opt/conda/bin/python", "/usr/local/bin/ollama",
            "/home/dev/miniconda3/envs/{}/bin/python")  # fmt: skip
_EDGE = "+" + "-" * 87 + "+"
_SMI = """| NVIDIA-SMI {0:<23}Driver Version: {0:<13}CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|"""
_SMI_GPU = """|{n:>4}  {model:<30} {pm:<3} | 00000000:{bus}:00.0 {disp:>3} |{ecc:>21} |
|{fan:>4}   {temp:>3}    {perf}{power:>24} |{used:>10} / {total:>8} |{util:>8}      Default |
|                                         |                      |{mig:>21} |
+-----------------------------------------+----------------------+----------------------+"""
_SMI_PROCESSES = """
+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|"""


def nvidia_smi(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``nvidia-smi``: the driver, a box for each GPU (fan, temperature, power,
    memory, use) and the processes on them; a desktop's card or a server's."""

    def run() -> list[Shown]:
        driver = rng.choice(("535.104.05", "535.129.03", "535.161.08", "535.183.01"))
        (model, cap, total, server), day = rng.choice(_GPUS), date(2026, 3, rng.randint(1, 28))
        out, processes = [day.strftime(f"%a %b %e {clock(rng)} %Y"), _EDGE, _SMI.format(driver)], []
        for n in range(rng.choice((1, 2, 4, 8) if server else (1, 1, 2))):
            busy, desktop = rng.random() < 0.7, not server and n == 0
            mine = [(p, "G", rng.randint(4, 400)) for p in _DESKTOP if rng.random() < 0.7 * desktop]
            name = rng.choice(_COMPUTE).format(project(rng))
            mine += [(name, "C", total * rng.randint(20, 90) // 100)] * busy
            processes += [(n, *p) for p in mine]
            used = sum(size for *_, size in mine) + rng.randint(0, 300) * bool(mine)
            watts = rng.randint(cap // 3, cap) if busy else rng.randint(cap // 30 + 1, cap // 8)
            out.append(_SMI_GPU.format(
                n=n, model=model, pm="On" if server else "Off", disp="Off" if server or n else "On",
                bus=("07", "0F", "47", "4E", "87", "90", "B7", "BD")[n] if server else f"0{n + 1}",
                ecc="0" if server else "N/A", fan="N/A" if server else f"{rng.randint(0, 85)}%",
                temp=f"{rng.randint(55, 83) if busy else rng.randint(28, 45)}C",
                perf=("P8", "P0")[busy], power=f"{watts}W / {cap:>3}W", used=f"{used}MiB",
                total=f"{total}MiB", util=f"{rng.randint(35, 100) * busy}%",
                mig="Disabled" if model.startswith(("NVIDIA A100", "NVIDIA H100")) else "N/A",
            ))  # fmt: skip
        out.append(_SMI_PROCESSES)
        for n, name, kind, size in processes:
            name, pid = name if len(name) <= 38 else "..." + name[-35:], rng.randint(900, 99999)
            out.append(f"|{n:>5}   N/A  N/A{pid:>10}{kind:>7}   {name:<38}{f'{size}MiB':>12} |")
        out += [] if processes else [f"|  {'No running processes found':<85}|"]
        return [line("$ nvidia-smi"), *_lines("\n".join([*out, _EDGE]))]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


_RESOLVERS = (("127.0.0.53", 65494), ("1.1.1.1", 1232), ("8.8.8.8", 512), ("192.168.1.1", 1232))
_CLOUDS = ("{d}.cdn.cloudflare.net.", "d{h}.cloudfront.net.", "{p}.github.io.",
           "{p}-lb-{n}.eu-west-1.elb.amazonaws.com.", "{p}-{h}.azurewebsites.net.")  # fmt: skip
_DIG = """
; <<>> DiG 9.18.19-1~deb12u1-Debian <<>> {args}{found}
;; global options: +cmd
;; Got answer:
;; ->>HEADER<<- opcode: QUERY, status: {status}, id: {id}
;; flags: qr rd ra; QUERY: 1, ANSWER: {answers}, AUTHORITY: {authorities}, ADDITIONAL: 1

;; OPT PSEUDOSECTION:
; EDNS: version: 0, flags:; udp: {udp}
;; QUESTION SECTION:
{question}

;; {section} SECTION:
{records}

;; Query time: {ms} msec
;; SERVER: {server}#53({server}) (UDP)
;; WHEN: {when} UTC 2026
;; MSG SIZE  rcvd: {size}
"""


def dig_answer(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``dig``: the header, the question, the answer (CNAMEs, addresses, mail
    exchangers, name servers) or an NXDOMAIN's SOA, the statistics."""

    def tabbed(*fields: str) -> str:  # each field tabbed to its column, or a blank on
        text = fields[0]
        for field, stop in zip(fields[1:], (24, 32, 40, 48)[len(fields) < 5 :], strict=False):
            text = text.ljust(max(stop, len(text) + 1)) + field
        return text

    def run() -> list[Shown]:
        p, n, h = project(rng), rng.randint(1, 99), hexid(rng, 13)
        domain = f"{p}{rng.choice(('', '-app', 'hq', 'labs'))}.{rng.choice(('com', 'io', 'dev'))}"
        qtype = rng.choice(("A", "A", "A", "AAAA", "MX", "NS", "CNAME"))
        sub = rng.choice(("www.", "api.", "cdn.", "status.", "")) if "A" in qtype else ""
        missing = rng.random() < 0.15  # no such name: the zone's SOA instead
        name = f"{rng.choice(('staging', 'old', 'vpn'))}.{domain}" if missing else sub + domain
        (server, udp), at = rng.choice(_RESOLVERS), rng.random() < 0.4
        args = f"@{server} " * at + name + f" {qtype}" * (qtype != "A")
        answer, owner = [], name
        if sub or qtype == "CNAME":
            owner = rng.choice(_CLOUDS).format(d=domain, p=p, n=n, h=h)[:-1]
            answer.append((name, "CNAME", owner + "."))
        for _ in range(rng.randint(1, 4) if qtype in ("A", "AAAA") else 0):
            four = ".".join(str(rng.randint(k, 223)) for k in (34, 1, 1, 1))
            six = f"2606:4700:{hexid(rng, 4).lstrip('0')}::{hexid(rng, 4).lstrip('0')}:{n}"
            answer.append((owner, qtype, four if qtype == "A" else six))
        google = [f"{k} {w}aspmx.l.google.com." for k, w in ((1, ""), (5, "alt1."), (10, "alt2."))]
        servers = [f"ns-{rng.randint(1, 2047)}.awsdns-{rng.randint(0, 63):02d}.{tld}."
                   for tld in ("org", "co.uk", "com", "net")]  # fmt: skip
        mail = google if rng.random() < 0.5 else [f"10 mx1.{domain}.", f"20 mx2.{domain}."]
        answer += [(name, qtype, data) for data in {"MX": mail, "NS": servers}.get(qtype, [])]
        soa = f"{servers[0]} awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"
        authority = [tabbed(f"{domain}.", "900", "IN", "SOA", soa)] * missing
        answer, ttl = answer * (not missing), str(rng.choice((60, 300, 3600, rng.randint(1, 3600))))
        records = authority or [tabbed(f"{o}.", ttl, "IN", k, v) for o, k, v in answer]
        when = date(2026, 3, n % 28 + 1).strftime(f"%a %b %d {clock(rng)}")
        text = _DIG.format(
            args=args, found="\n; (1 server found)" * at, id=rng.randint(1, 65535),
            status="NXDOMAIN" if missing else "NOERROR", answers=len(answer),
            authorities=len(authority), udp=udp, server=server, when=when,
            question=tabbed(f";{name}.", "IN", qtype), records="\n".join(records),
            section="AUTHORITY" if missing else "ANSWER",
            ms=rng.choice((0, 4, 12, 28, rng.randint(1, 180))),
            size=23 + len(name) + sum(12 + len(data) for *_, data in answer) + 90 * missing,
        )  # fmt: skip
        return [line(f"$ dig {args}"), *_lines(text)]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


# Issuers: name, signature, URL (of CA Issuers, CRL: {} is i, c), CT-logged (has SCTs).
_ISSUERS = (
    ("C = US, O = Let's Encrypt, CN = R11", "sha256WithRSAEncryption", "r11.{}.lencr.org/", 1),
    ("C = US, O = Let's Encrypt, CN = E6", "ecdsa-with-SHA384", "e6.{}.lencr.org/", 1),
    ("O = {P}, CN = {P} Internal CA", "ecdsa-with-SHA256", "pki.{p}.internal/{}", 0),
)
_CERTIFICATE = """Certificate:
    Data:
        Version: 3 (0x2)
        Serial Number:
{serial}
        Signature Algorithm: {algorithm}
        Issuer: {issuer}
        Validity
            Not Before: {before} GMT
            Not After : {after} GMT
        Subject: CN = {host}
        Subject Public Key Info:
            Public Key Algorithm: {kind}
                Public-Key: ({bits} bit)
                {label}:
{key}
        X509v3 extensions:
{extensions}
    Signature Algorithm: {algorithm}
    Signature Value:
{signature}"""
# Each extension's title and value (its lines indented four more).
_EXTENSIONS = """X509v3 Key Usage: critical|Digital Signature{usage}
X509v3 Extended Key Usage:|TLS Web Server Authentication
X509v3 Basic Constraints: critical|CA:FALSE
X509v3 Subject Key Identifier:|{ski}
X509v3 Authority Key Identifier:|{aki}
Authority Information Access:|CA Issuers - URI:http://{ca}
X509v3 Subject Alternative Name:|{names}
X509v3 Certificate Policies:|Policy: 2.23.140.1.2.1
X509v3 CRL Distribution Points:|{crl}"""
_SCT = """Signed Certificate Timestamp:
    Version   : v1 (0x0)
    Log ID    : {log}
    Timestamp : {stamp} GMT
    Extensions: none
    Signature : ecdsa-with-SHA256
{sig}"""


def openssl_x509(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``openssl x509 -noout -text``: a server's certificate, its key (an RSA
    modulus, an EC point), extensions (``critical``, DNS names, SCTs), signature."""

    def hexes(data: bytes, width: int, indent: int, upper: bool = False) -> str:  # a colon each
        text = ":".join(f"{b:02X}" if upper else f"{b:02x}" for b in data)
        rows = (text[n : n + 3 * width] for n in range(0, len(text), 3 * width))
        return "\n".join(" " * indent + row for row in rows)

    def ecdsa() -> bytes:  # two 32-byte integers in DER, the first with a sign byte
        return b"\x30\x45\x02\x21\x00" + rng.randbytes(32) + b"\x02\x20" + rng.randbytes(32)

    def run() -> list[Shown]:
        (issuer, algorithm, url, logged), rsa = rng.choice(_ISSUERS), rng.random() < 0.6
        p, time, start = project(rng), clock(rng), date(2026, 1, 1) + timedelta(rng.randrange(330))
        before, after = (d.strftime(f"%b %e {time} %Y") for d in (start, start + timedelta(90)))
        issuer, url, n = issuer.format(P=p.capitalize()), url.replace("{p}", p), rng.randint(1, 99)
        host = f"{rng.choice(('www', 'api', 'shop', 'auth'))}.{p}.{rng.choice(('com', 'io'))}"
        alts = [f"{w}.{host.split('.', 1)[1]}" for w in rng.sample(NOUNS, rng.randint(0, 4))]
        bits = rng.choice((2048, 2048, 4096))
        key = b"\0" + bytes([rng.randint(0x80, 0xFF)]) + rng.randbytes(bits // 8 - 1)
        values = dict(
            usage=", Key Encipherment" * rsa, ski=hexes(rng.randbytes(20), 20, 0, True),
            aki=hexes(rng.randbytes(20), 20, 0, True), ca=url.format("i") + ".crt" * (not logged),
            names=", ".join(f"DNS:{name}" for name in [host, *alts]),
            crl=f"Full Name:\n  URI:http://{url.format('c')}{n if logged else ''}.crl",
        )  # fmt: skip
        rows = (row.split("|") for row in _EXTENSIONS.splitlines())
        extensions = [(title, value.format(**values)) for title, value in rows]
        scts = [_SCT.format(log=hexes(rng.randbytes(32), 16, 16, True).lstrip(),
                            stamp=f"{before[:-5]}.{rng.randrange(1000):03d} 2026",
                            sig=hexes(ecdsa(), 16, 16, True)) for _ in range(2)]  # fmt: skip
        extensions += [("CT Precertificate SCTs:", "\n".join(scts))] * logged
        text = _CERTIFICATE.format(
            serial=hexes(bytes([rng.randint(3, 0x7F)]) + rng.randbytes(17), 18, 12),
            algorithm=algorithm, issuer=issuer, before=before, after=after, host=host,
            kind="rsaEncryption" if rsa else "id-ecPublicKey", bits=bits if rsa else 256,
            label="Modulus" if rsa else "pub", key=hexes(key if rsa else b"\x04" + key[:64], 15, 20)
            + ("\n" + " " * 16).join(["", "Exponent: 65537 (0x10001)"] if rsa else
                                     ["", "ASN1 OID: prime256v1", "NIST CURVE: P-256"]),
            extensions="\n".join(f"{' ' * 12}{title}\n" + "\n".join(
                f"{' ' * 16}{row}" for row in value.split("\n")) for title, value in extensions),
            signature=hexes(rng.randbytes(256) if "RSA" in algorithm else ecdsa(), 18, 8),
        )  # fmt: skip
        return [line(f"$ openssl x509 -noout -text -in {host}.pem"), *_lines(text)]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


_WARNINGS = ('Warning:  Undefined array key "{w}"', "Warning:  Undefined variable ${w}",
             "Deprecated:  Creation of dynamic property {c}::${w} is deprecated",
             "Warning:  foreach() argument must be of type array|object, null given")  # fmt: skip
_ERRORS = ("TypeError: {c}::{m}(): Argument #1 (${w}) must be of type int, string given, called "
           "in {f} on line {l} and defined", "Error: Call to a member function {m}() on null",
           "Error: Call to undefined method {c}::{m}()", 'Error: Class "{c}" not found',
           "PDOException: SQLSTATE[HY000] [2002] Connection refused", "ArgumentCountError: Too "
           "few arguments to function {c}::__construct(), 1 passed in {f} on line {l} and exactly "
           "2 expected")  # fmt: skip
_MEMORY = "Allowed memory size of 134217728 bytes exhausted (tried to allocate {} bytes)"


def php_fatal(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """The PHP 8.2 CLI dying of an uncaught exception or of memory, warnings before,
    logged to stderr, each shown again on stdout where ``display_errors`` is on."""

    def klass() -> str:
        space = rng.choice(("Service", "Repository", "Http\\Controller", "Import", "Queue\\Job"))
        return f"App\\{space}\\{camel(rng)}{rng.choice(('Service', 'Handler', ''))}"

    def where() -> str:
        return f"/var/www/app/src/{rng.choice(NOUNS).capitalize()}/{camel(rng)}.php"

    def run() -> list[Shown]:
        args, shown = rng.random() < 0.5, rng.random() < 0.3  # ignore_args off; display_errors on
        script = rng.choice(("bin/console", "bin/import.php", "worker.php"))
        file, caller, number, at = where(), where(), rng.randint(9, 400), rng.randint(9, 400)
        c, m, w = klass(), rng.choice(NOUNS) + camel(rng), rng.choice(NOUNS)
        error = rng.choice(_ERRORS).format(c=c, m=m, w=w, f=caller, l=at)
        errors = [f"PHP {rng.choice(_WARNINGS).format(w=w, c=klass())} in {where()} on line "
                  f"{rng.randint(9, 400)}" for _ in range(rng.choice((0, 0, 1, 2)))]  # fmt: skip
        frames = [f"{caller}({at}): {c}->{m if error[0] in 'TA' else w}({'Array' * args})"]
        for _ in range(rng.randint(1, 5)):
            value = rng.choice((f"'{project(rng)}-{hexid(rng, 20)}'", f"'{w}'", str(at), "NULL",
                                "Array", f"Object({klass()})"))  # fmt: skip
            value = value if len(value) < 18 or value[0] != "'" else value[:16] + "...'"
            call = f"{klass()}->{rng.choice(NOUNS)}{camel(rng)}({value * args})"
            frames.append(f"{where()}({rng.randint(9, 400)}): {call}")
        frames += [f"/var/www/app/{script}({rng.randint(9, 60)}): {klass()}->run()", "{main}"]
        trace = "\n".join(f"#{k} {frame}" for k, frame in enumerate(frames))
        fatal = f"Uncaught {error} in {file}:{number}\nStack trace:\n{trace}\n  thrown"
        fatal = _MEMORY.format(at << 8) if rng.random() < 0.15 else fatal
        errors.append(f"PHP Fatal error:  {fatal} in {file} on line {number}")
        text = [f"{e}\n\n{e[4:].replace(':  ', ': ', 1)}" if shown else e for e in errors]
        task = f" app:{snake(rng).replace('_', '-')}" * (script == "bin/console")
        return [line(f"$ php {script}{task}"), *_lines("\n".join(text))]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


# Rules: target, protocol, in, out, source, destination ("-": anywhere); after " | "
# what its matches and its target print. Docker's own chains: name: rule;rule.
_INPUT = """ACCEPT all lo * - -
ACCEPT all * * - - | ctstate RELATED,ESTABLISHED
DROP all * * - - | ctstate INVALID
f2b-sshd tcp * * - - | multiport dports 22
ACCEPT tcp * * - - | tcp dpt:22 ctstate NEW /* ssh */
ACCEPT tcp * * - - | multiport dports 80,443 /* web */
ACCEPT tcp * * 10.0.0.0/8 - | tcp dpt:5432 /* postgres from the vpc */
ACCEPT udp * * - - | udp dpt:51820 /* wireguard */
ACCEPT icmp * * - - | icmptype 8 limit: avg 1/sec burst 5
LOG all * * - - | limit: avg 5/min burst 5 LOG flags 0 level 4 prefix "drop: \""""
_FORWARD = """DOCKER-USER all * * - -
DOCKER-ISOLATION-STAGE-1 all * * - -
ACCEPT all * docker0 - - | ctstate RELATED,ESTABLISHED
DOCKER all * docker0 - -
ACCEPT all docker0 !docker0 - -
ACCEPT all docker0 docker0 - -"""
_DOCKER = """DOCKER: ACCEPT tcp !docker0 docker0 - 172.17.0.2 | tcp dpt:5432
DOCKER-ISOLATION-STAGE-1: DOCKER-ISOLATION-STAGE-2 all docker0 !docker0 - -;RETURN all * * - -
DOCKER-ISOLATION-STAGE-2: DROP all * docker0 - -;RETURN all * * - -
DOCKER-USER: RETURN all * * - -"""
_HEADER = "num   pkts bytes target     prot opt in     out     source               destination"


def iptables_list(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``iptables -L -n -v --line-numbers``: chains, their rules numbered and padded
    as iptables pads them (a long target pushing the rest on), what each matches."""

    def number(value: int) -> str:  # whole up to 99999, then in K, M, G, T up to 9999
        unit = 0
        while value > (9999 if unit else 99999):
            value, unit = (value + 500) // 1000, unit + 1
        return f"{value}{' KMGT'[unit].strip()}"

    def chain(name: str, rules: list[str], policy: str = "") -> list[str]:
        packets = rng.randint(0, 10**6) * (policy == "ACCEPT")
        title = f"policy {policy} {number(packets)} packets, {number(packets * 400)} bytes"
        out = [f"Chain {name} ({title if policy else '1 references'})", _HEADER]
        hits = sorted((int(10 ** rng.uniform(0, 8)) for _ in rules), reverse=True)
        for n, (rule, count) in enumerate(zip(rules, hits, strict=True), 1):
            fields, _, matches = rule.partition(" | ")
            target, prot, iin, iout, *ends = fields.split()
            source, to = ("0.0.0.0/0" if end == "-" else end for end in ends)
            counts = f"{number(count):>5} {number(count * rng.randint(52, 1400)):>5}"
            out.append(f"{n:<4} {counts} {target:<9}  {prot:<5}--  {iin:<6} {iout:<6}  "
                       f"{source:<19}  {to:<19}  {matches}".rstrip())  # fmt: skip
        return [*out, ""]

    def run() -> list[Shown]:
        rules = [_INPUT.splitlines()[n] for n in sorted(rng.sample(range(10), rng.randint(4, 9)))]
        docker, text = rng.random() < 0.6, chain("INPUT", rules, rng.choice(("DROP", "ACCEPT")))
        text += chain("FORWARD", _FORWARD.splitlines() * docker, "DROP")
        text += chain("OUTPUT", [], "ACCEPT")
        for name, chained in (row.split(": ") for row in _DOCKER.splitlines() * docker):
            text += chain(name, chained.split(";"))
        if any(rule.startswith("f2b") for rule in rules):
            ban = "REJECT all * * {}.{}.{}.{} - | reject-with icmp-port-unreachable"
            bans = [ban.format(*(rng.randint(k, 223) for k in (128, 0, 0, 1))) for _ in "1234"]
            text += chain("f2b-sshd", [*bans, "RETURN all * * - -"])
        return [line("$ sudo iptables -L -n -v --line-numbers"), *_lines("\n".join(text[:-1]))]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


TOOLS: dict[str, Kind] = {
    "dig-answer": dig_answer,
    "iptables-list": iptables_list,
    "nvidia-smi": nvidia_smi,
    "objdump-disasm": objdump_disasm,
    "openssl-x509": openssl_x509,
    "php-fatal": php_fatal,
}
