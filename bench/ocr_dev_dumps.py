"""Kinds of text for the fourth dev set of kinds (``DUMPS``): dumps,
logs, runs and reports of tools neither part of the corpus holds, written
as the corpus's kinds are (tests/terminal_texts).

Here: ``hexdump -C`` of real bytes (an ELF header, a PNG, a gzip file, a
CSV with a byte-order mark and CRLFs), the kernel's log as ``dmesg
--color`` prints it, and ``ps aux`` cut at the window's edge. In
``bench/ocr_dev_runs.py``: an ``ansible-playbook`` run with its recap,
``git log --graph --oneline --decorate --all`` with its branch art and an
``nmap`` scan report.

None of them is a held-out kind of the corpus or close to one (its
``rustc``, Go panic, pytest, psql, ``kubectl get pods``, tmux, ``systemctl
status``, ``df``/``free``, ``curl -v`` and YAML kinds): hex columns with a
bracketed character column, the kernel's ``[    1.234567]`` stamps, a
playbook's banners of stars and its recap of ``name=count`` cells, a
graph's diagonals (``|\\``, ``|/ /``), a process table cut mid-word at the
window's edge and a port table of services and versions share no layout
or vocabulary with them. The nearest, the tables of ``kubectl``, ``df``
and ``systemctl status``'s journal lines, are words aligned to fit their
window, with a unit's or a pod's name first; so tuning on these leaves the
held-out part held out. The corpus's training kinds they are nearest,
``git log --oneline --graph`` (straight lanes, ``*`` and ``| *`` only) and
``top`` (a process table that fits), draw neither the diagonals nor the
cut lines.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable, Iterator

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    NOUNS,
    Part,
    Screen,
    clock,
    email,
    hexid,
    line,
    person,
    project,
    runs,
    snake,
    version,
)

from ocr_dev_runs import ansible_play, git_graph, nmap_scan

Kind = Callable[[random.Random, int, int], list[Shown]]


# --- hexdump -C ---------------------------------------------------------------------


def _hexdump(data: bytes) -> list[str]:
    """``data`` as ``hexdump -C`` prints it: offset, two groups of eight
    bytes, the printable ones between bars; a run of equal lines as ``*``;
    the length last."""
    out: list[str] = []
    previous, squeezed = b"", False
    for offset in range(0, len(data), 16):
        chunk = data[offset : offset + 16]
        if chunk == previous and len(chunk) == 16:
            if not squeezed:
                out.append("*")
            squeezed = True
            continue
        previous, squeezed = chunk, False
        hexes = [f"{byte:02x}" for byte in chunk]
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        left, right = " ".join(hexes[:8]), " ".join(hexes[8:])
        out.append(f"{offset:08x}  {left:<23}  {right:<23}  |{text}|")
    return [*out, f"{len(data):08x}"]


def _elf(rng: random.Random) -> bytes:
    """The first pages of an x86-64 PIE: its header, program headers, the
    interpreter, notes, symbols and their names, padding, then code."""
    shoff = rng.randrange(0x3000, 0x9000, 8)
    data = bytearray(b"\x7fELF\x02\x01\x01" + bytes(9))
    entry = rng.randrange(0x1040, 0x1200, 0x10)
    data += struct.pack("<HHIQQQIHHHHHH", 3, 0x3E, 1, entry, 64, shoff, 0, 64, 56, 13, 64, 31, 30)
    code, rodata, rw = 0x1000, 0x2000, rng.randrange(0x2D00, 0x2E00, 0x10)
    headers = (
        (6, 4, 0x40, 0x2D8, 8),
        (3, 4, 0x318, 0x1C, 1),
        (1, 4, 0, 0x628, 0x1000),
        (1, 5, code, rng.randrange(0x100, 0x800), 0x1000),
        (1, 4, rodata, rng.randrange(0xE0, 0x200), 0x1000),
        (1, 6, rw, 0x250, 0x1000),
        (2, 6, rw + 0x10, 0x1E0, 8),
        (4, 4, 0x338, 0x30, 8),
        (4, 4, 0x368, 0x44, 4),
        (0x6474E553, 4, 0x338, 0x30, 8),
        (0x6474E550, 4, rodata + 0x10, 0x34, 4),
        (0x6474E551, 6, 0, 0, 0x10),
        (0x6474E552, 4, rw, 0x230, 1),
    )
    for kind, flags, offset, size, align in headers:
        address = offset + 0x1000 if offset == rw or offset == rw + 0x10 else offset
        data += struct.pack("<IIQQQQQQ", kind, flags, offset, address, address, size, size, align)
    data += b"/lib64/ld-linux-x86-64.so.2\0".ljust(0x20, b"\0")
    data += struct.pack("<III", 4, 0x20, 5) + b"GNU\0" + struct.pack("<III", 0xC0000002, 4, 3)
    data += bytes(0x368 - len(data))
    data += struct.pack("<III", 4, 20, 3) + b"GNU\0" + rng.randbytes(20)
    data += struct.pack("<III", 4, 16, 1) + b"GNU\0" + struct.pack("<IIII", 0, 3, 2, 0)
    data += struct.pack("<IIII", 2, 6, 1, 6) + bytes(8) + rng.randbytes(8)
    data += bytes(-len(data) % 8)
    names = b"\0puts\0__libc_start_main\0__cxa_finalize\0libc.so.6\0GLIBC_2.2.5\0GLIBC_2.34\0"
    names += b"_ITM_deregisterTMCloneTable\0__gmon_start__\0_ITM_registerTMCloneTable\0"
    data += bytes(24)
    for name, info in ((1, 0x12), (6, 0x12), (74, 0x20), (102, 0x20), (117, 0x22), (24, 0x22)):
        data += struct.pack("<IBBHQQ", name, info, 0, 0, 0, 0)
    data += names + bytes(-(len(data) + len(names)) % 8)
    for _ in range(rng.randint(4, 8)):
        data += struct.pack(
            "<QQQ", rng.randrange(0x3DC0, 0x4020, 8), 8, rng.randrange(0x1100, 0x1200)
        )
    data += bytes(0x1000 - len(data))
    data += bytes.fromhex(
        "f30f1efa4883ec08488b05d92f00004885c07402ffd04883c408c3"
        "0000000000ff35822f0000f2ff25832f00000f1f00f30f1efa6800000000f2e9e1ffffff90"
    )
    return bytes(data)


def _png(rng: random.Random) -> bytes:
    """A small real PNG: signature, IHDR, a text chunk, its compressed pixels, IEND."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    side = rng.choice((16, 24, 32, 48))
    colours = [rng.randbytes(3) for _ in range(3)]
    pixels = b"".join(  # a checkerboard, shaded and noisy as an icon's antialiasing is
        b"\0"
        + b"".join(
            bytes((c + rng.randrange(12)) % 256 for c in colours[(x // 8 + y // 8) % 3]) + b"\xff"
            for x in range(side)
        )
        for y in range(side)
    )
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0))
    if rng.random() < 0.6:
        software = rng.choice((b"gnome-screenshot", b"www.inkscape.org", b"GIMP 2.10.34"))
        out += chunk(b"tEXt", b"Software\0" + software)
    out += chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1))
    return out + chunk(b"IDAT", zlib.compress(pixels, 9)) + chunk(b"IEND", b"")


def _text_file(rng: random.Random) -> tuple[str, bytes]:
    """A CSV written on Windows: a byte-order mark, CRLF line ends."""
    rows = ["id,name,email,plan"]
    for n in range(rng.randint(2, 9)):
        who = person(rng)
        rows.append(f"{n + 1},{who},{email(rng, who)},{rng.choice(('free', 'team', 'pro'))}")
    bom = b"\xef\xbb\xbf" if rng.random() < 0.5 else b""
    return f"{rng.choice(NOUNS)}s.csv", bom + "\r\n".join(rows).encode() + b"\r\n"


def _gzip(rng: random.Random) -> tuple[str, bytes]:
    """A real gzip file of a log, its name kept in the header."""
    name = f"{project(rng)}.log"
    text = "".join(
        f"2026-12-0{rng.randint(1, 7)} {clock(rng)} {rng.choice(('INFO', 'WARN'))} "
        f"{snake(rng)} done in {rng.randint(1, 999)} ms\n"
        for _ in range(rng.randint(4, 20))
    ).encode()
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = squeeze.compress(text) + squeeze.flush()
    header = b"\x1f\x8b\x08\x08" + struct.pack("<I", rng.randint(1.7e9, 1.8e9)) + b"\x02\x03"
    tail = struct.pack("<II", zlib.crc32(text), len(text))
    return f"{name}.gz", header + name.encode() + b"\0" + body + tail


def hexdump_c(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``hexdump -C`` of a binary's first lines, an image, a gzip file or a
    text file: offsets, sixteen bytes in two groups, the printable ones
    between bars, ``*`` for a run of equal lines."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            what = rng.choice(("elf", "png", "gzip", "text"))
            if what == "elf":
                name, data = f"build/{project(rng)}", _elf(rng)
            elif what == "png":
                name, data = f"assets/{rng.choice(NOUNS)}-{rng.randint(16, 64)}.png", _png(rng)
            elif what == "gzip":
                name, data = _gzip(rng)
            else:
                name, data = _text_file(rng)
            dump = _hexdump(data)
            command = f"$ hexdump -C {name}"
            if len(dump) > 24 or rng.random() < 0.3:
                count = rng.choice((8, 16, 20, 32, 64))
                command += f" | head -n {count}"
                dump = dump[:count]
            yield [line(command), *(line(text) for text in dump)]

    return Screen(columns, rows).fill(blocks())


# --- dmesg --------------------------------------------------------------------------

# dmesg --color's colours: the stamp green, the subsystem yellow, the message
# by its level; here a message's level is its first character ("!" error,
# "~" warning, "#" critical, " " or none: the rest).
_LEVELS = {"!": "31", "~": "1", "#": "1;31"}


def _boot(rng: random.Random) -> list[str]:
    """A boot's first messages."""
    kernel = f"6.1.0-{rng.randint(18, 28)}-amd64"
    uuid = f"{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}"
    return [
        f"Linux version {kernel} (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) "
        "12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian "
        f"6.1.{rng.randint(70, 130)}-1 (2024-11-22)",
        f"Command line: BOOT_IMAGE=/boot/vmlinuz-{kernel} root=UUID={uuid} ro quiet",
        "x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
        "x86/fpu: Supporting XSAVE feature 0x002: 'SSE registers'",
        "BIOS-provided physical RAM map:",
        "BIOS-e820: [mem 0x0000000000000000-0x000000000009efff] usable",
        f"BIOS-e820: [mem 0x0000000000100000-0x00000000{hexid(rng, 8)}] usable",
        f"ACPI: RSDP 0x00000000000F05B0 000024 (v02 {rng.choice(('LENOVO', 'HPQOEM'))})",
        "!ACPI BIOS Error (bug): Could not resolve symbol [\\_SB.PC00.XHCI.RHUB.HS01], "
        "AE_NOT_FOUND (20220331/dswload2-162)",
        f"nvme nvme0: pci function 0000:0{rng.randint(1, 6)}:00.0",
        "nvme nvme0: 8/0/0 default/read/poll queues",
        " nvme0n1: p1 p2 p3",
        f"EXT4-fs (nvme0n1p2): mounted filesystem {uuid} with ordered data mode. Quota mode: none.",
        "iwlwifi 0000:00:14.3: loaded firmware version 83.e8f84e98.0 so-a0-gf-a0-83.ucode "
        "op_mode iwlmvm",
        "iwlwifi 0000:00:14.3: Detected Intel(R) Wi-Fi 6E AX211 160MHz, REV=0x370",
        "Bluetooth: hci0: Firmware revision 0.0 build 14 week 44 2021",
        f"EXT4-fs (nvme0n1p2): re-mounted {uuid}. Quota mode: none.",
    ]


def _events(rng: random.Random) -> list[str]:
    """What a running machine logs at once: a USB stick, a mouse, the wifi,
    a disk failing, a process crashing, the OOM killer, AppArmor."""
    usb = f"usb {rng.randint(1, 3)}-{rng.randint(1, 4)}"
    bus, number = usb[4:], rng.randint(2, 20)
    mac = ":".join(hexid(rng, 2) for _ in range(6))
    pid = rng.randint(1000, 99999)
    big = rng.randint(10**6, 10**7)
    return rng.choice(
        (
            [
                f"{usb}: new SuperSpeed USB device number {number} using xhci_hcd",
                f"{usb}: New USB device found, idVendor=0781, idProduct=5581, bcdDevice= 1.00",
                f"usb-storage {bus}:1.0: USB Mass Storage device detected",
                f"scsi host0: usb-storage {bus}:1.0",
                "scsi 0:0:0:0: Direct-Access     SanDisk  Ultra            1.00 PQ: 0 ANSI: 6",
                "sd 0:0:0:0: [sda] 60063744 512-byte logical blocks: (30.8 GB/28.6 GiB)",
                "sd 0:0:0:0: [sda] Write Protect is off",
                " sda: sda1",
                "sd 0:0:0:0: [sda] Attached SCSI removable disk",
                "~FAT-fs (sda1): Volume was not properly unmounted. Some data may be corrupt. "
                "Please run fsck.",
            ],
            [
                f"{usb}: new full-speed USB device number {number} using xhci_hcd",
                f"{usb}: Product: USB Receiver",
                f"{usb}: Manufacturer: Logitech",
                f"input: Logitech USB Receiver as /devices/pci0000:00/0000:00:14.0/usb1/{bus}/"
                f"{bus}:1.0/0003:046D:C52B.000{number % 10}/input/input{number + 12}",
                f"{usb}: USB disconnect, device number {number}",
                f"!{usb}: device descriptor read/64, error -71",
            ],
            [
                f"wlp0s20f3: authenticate with {mac} (local address="
                f"{':'.join(hexid(rng, 2) for _ in range(6))})",
                f"wlp0s20f3: send auth to {mac} (try 1/3)",
                "wlp0s20f3: associated",
                "IPv6: ADDRCONF(NETDEV_CHANGE): wlp0s20f3: link becomes ready",
                "!iwlwifi 0000:00:14.3: Microcode SW error detected. Restarting 0x0.",
                f"wlp0s20f3: deauthenticating from {mac} by local choice (Reason: "
                "3=DEAUTH_LEAVING)",
            ],
            [
                f"~nvme nvme0: I/O {pid % 1024} QID {pid % 8 + 1} timeout, aborting",
                f"!I/O error, dev nvme0n1, sector {big * 37} op 0x0:(READ) flags 0x80700 "
                "phys_seg 1 prio class 2",
                f"!EXT4-fs error (device nvme0n1p2): ext4_find_entry:1682: inode #{pid}: comm ls: "
                "reading directory lblock 0",
                "!Aborting journal on device nvme0n1p2-8.",
                "#EXT4-fs (nvme0n1p2): Remounting filesystem read-only",
            ],
            [
                f"!{rng.choice(('python3', 'node', project(rng)))}[{pid}]: segfault at 0 ip "
                f"00007f{hexid(rng, 10)} sp 00007ffd{hexid(rng, 8)} error 4 in libc.so.6"
                f"[7f{hexid(rng, 7)}000+155000] likely on CPU {pid % 8} (core {pid % 8}, socket 0)",
                f"Code: 48 8b 05 {hexid(rng, 2)} 2f 00 00 <0f> 0b 66 0f 1f 44 00 00",
            ],
            [
                "~java invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
                "order=0, oom_score_adj=0",
                f"!Out of memory: Killed process {pid} (java) total-vm:{big * 2}kB, anon-rss:"
                f"{big}kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:{big // 500}kB "
                "oom_score_adj:0",
                f"docker0: port 1(veth{hexid(rng, 7)}) entered disabled state",
            ],
            [
                f"audit: type=1400 audit({rng.randint(1.7e9, 1.8e9)}.{rng.randint(100, 999)}:"
                f'{rng.randint(40, 400)}): apparmor="DENIED" operation="open" '
                f'profile="snap.firefox.firefox" name="/proc/{pid}/cgroup" pid={pid} '
                'comm="firefox" requested_mask="r" denied_mask="r" fsuid=1000 ouid=1000',
            ],
        )
    )


def _dmesg_line(seconds: float, text: str) -> Shown:
    """One record as ``dmesg --color`` prints it: the stamp green, the
    subsystem (up to the first colon before a blank) yellow, the message in
    its level's colour."""
    colour = _LEVELS.get(text[:1], "")
    text = text[1:] if colour else text
    cut = text.find(": ") + 1
    parts: list[Part] = [(f"[{seconds:12.6f}]", "32"), " "]
    if cut:
        parts.append((text[:cut], "33"))
    parts.append((text[cut:], colour))
    return line(*parts)


def dmesg(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """The kernel's log: a boot's first messages, or later ones as
    ``dmesg -w`` follows them, or only the errors and warnings; in colour,
    a burst's messages milliseconds apart, bursts minutes apart."""
    mode = rng.choice(("boot", "follow", "errors"))
    seconds = 0.0 if mode == "boot" else rng.uniform(100, 400000)
    command = {
        "boot": f"sudo dmesg --color=always | head -n {max(rows, 10)}",
        "follow": "sudo dmesg -w",
        "errors": "sudo dmesg --level=err,warn",
    }[mode]

    def records() -> Iterator[list[Shown]]:
        nonlocal seconds
        yield [line(f"$ {command}")]
        burst = _boot(rng) if mode == "boot" else []
        while True:
            for text in burst:
                if mode == "errors" and text[:1] not in _LEVELS:
                    continue
                seconds += rng.expovariate(60 if mode == "boot" else 200)
                yield [_dmesg_line(seconds, text)]
            seconds += rng.expovariate(1 / 300)
            burst = _events(rng)

    return Screen(columns, rows).fill(records())


# --- ps aux -------------------------------------------------------------------------

_KERNEL_THREADS = (
    "[kthreadd]",
    "[rcu_gp]",
    "[rcu_par_gp]",
    "[slub_flushwq]",
    "[netns]",
    "[kworker/0:0H-events_highpri]",
    "[mm_percpu_wq]",
    "[rcu_tasks_kthread]",
    "[ksoftirqd/0]",
    "[rcu_preempt]",
    "[migration/0]",
    "[cpuhp/0]",
    "[kdevtmpfs]",
    "[khungtaskd]",
    "[oom_reaper]",
    "[kcompactd0]",
    "[ksmd]",
    "[khugepaged]",
    "[kblockd]",
    "[irq/145-iwlwifi]",
    "[nvme-wq]",
    "[jbd2/nvme0n1p2-8]",
    "[ext4-rsv-conver]",
    "[kworker/u16:2-events_unbound]",
    "[kworker/3:1H-kblockd]",
)


def _process(rng: random.Random, me: str) -> tuple[str, str, bool, bool, str]:
    """A process: its user (cut to eight characters with ``+`` as ps cuts
    it), its state, whether it is big (gigabytes of address space), whether
    it has a terminal, and its command line, as long as real ones get."""
    name = project(rng)
    firefox = (
        f"/usr/lib/firefox-esr/firefox-esr -contentproc -childID {rng.randint(1, 40)} "
        f"-isForBrowser -prefsLen {rng.randint(20000, 40000)} -prefMapSize 244671 -jsInitLen "
        f"231800 -parentBuildID 2024111812{rng.randint(1000, 9999)} -greomni "
        "/usr/lib/firefox-esr/omni.ja -appomni /usr/lib/firefox-esr/browser/omni.ja -appDir "
        f"/usr/lib/firefox-esr/browser {{{hexid(rng, 8)}-{hexid(rng, 4)}}} "
        f"{rng.randint(1000, 9999)} true tab"
    )
    # fmt: off
    return rng.choice((
        ("root", "Ss", False, False, "/lib/systemd/systemd-journald"),
        ("root", "Ss", False, False, "/lib/systemd/systemd-udevd"),
        ("systemd+", "Ss", False, False, "/lib/systemd/systemd-resolved"),
        ("systemd+", "Ssl", False, False, "/lib/systemd/systemd-timesyncd"),
        ("message+", "Ss", False, False, "/usr/bin/dbus-daemon --system --address=systemd: "
         "--nofork --nopidfile --systemd-activation --syslog-only"),
        ("root", "Ss", False, False, "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"),
        ("root", "Ss", False, False, f"sshd: {me} [priv]"),
        (me, "S", False, False, f"sshd: {me}@pts/{rng.randint(0, 4)}"),
        (me, "Ss", False, True, "-bash"),
        (me, "S+", False, True, f"tmux new -s {rng.choice(NOUNS)}"),
        ("root", "Ssl", True, False,
         "/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock"),
        ("root", "Sl", False, False, "/usr/bin/containerd-shim-runc-v2 -namespace moby -id "
         f"{hexid(rng, 64)} -address /run/containerd/containerd.sock"),
        ("postgres", "Ss", False, False, "/usr/lib/postgresql/15/bin/postgres -D "
         "/var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf"),
        ("postgres", "Ss", False, False, "postgres: 15/main: checkpointer"),
        ("postgres", "Ss", False, False,
         f"postgres: 15/main: {me} {name} 127.0.0.1({rng.randint(30000, 60000)}) idle"),
        ("redis", "Ssl", False, False, "/usr/bin/redis-server 127.0.0.1:6379"),
        ("root", "Ss", False, False,
         "nginx: master process /usr/sbin/nginx -g daemon on; master_process on;"),
        ("www-data", "S", False, False, "nginx: worker process"),
        (me, "Sl+", True, True, f"/home/{me}/{name}/.venv/bin/python3 -m uvicorn {name}.main:app "
         f"--host 0.0.0.0 --port 8000 --workers {rng.randint(2, 8)}"),
        (me, "Sl", True, False, "/usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xms512m -Xmx"
         f"{rng.randint(1, 8)}g -XX:+UseG1GC -Dspring.profiles.active=prod -jar "
         f"/opt/{name}/{name}-{version(rng)}.jar"),
        (me, "Sl+", True, True, f"node /home/{me}/{name}/node_modules/.bin/vite --port 5173"),
        (me, "Sl", True, False, firefox),
        ("root", "Ss", False, False, "/usr/bin/python3 /usr/share/unattended-upgrades/"
         "unattended-upgrade-shutdown --wait-for-signal"),
        (me, "S+", False, True, f"vim src/{rng.choice(NOUNS)}/{snake(rng)}.py"),
    ))
    # fmt: on


def _ps_row(fields: tuple[object, ...], command: str) -> str:
    """A row as procps-ng prints ``ps aux``: a wide number pushes the rest right."""
    user, pid, cpu, mem, vsz, rss, tty, state, start, time = fields
    return (
        f"{user:<8} {pid:>7} {cpu:4.1f} {mem:4.1f} {vsz:>6} {rss:>5} {tty:<8} {state:<4} "
        f"{start:<5} {time:>6} {command}"
    )


def ps_aux(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``ps aux``: every process by PID, kernel threads first, command lines
    cut at the window's edge as ps cuts them; its first rows or its last
    (``ps aux`` itself among them)."""
    me = rng.choice(("ana", "dev", "kenji", "priya"))

    def run() -> list[Shown]:
        out = [
            "$ ps aux",
            "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND",
            _ps_row(("root", 1, 0.0, 0.1, 168612, 13104, "?", "Ss", "Dec06", "0:05"), "/sbin/init"),
        ]
        pid = 2
        for thread in rng.sample(_KERNEL_THREADS, rng.randint(4, 12)):
            state = rng.choice(("S", "I<", "I", "S<"))
            out.append(_ps_row(("root", pid, 0.0, 0.0, 0, 0, "?", state, "Dec06", "0:00"), thread))
            pid += rng.randint(1, 30)
        for _ in range(rng.randint(8, 30)):
            user, state, big, own, command = _process(rng, me)
            tty = f"pts/{rng.randint(0, 4)}" if own else "?"
            pid += rng.randint(1, 900)
            vsz = rng.randint(10**6, 12 * 10**6) if big else rng.randint(5000, 400000)
            rss = int(vsz * rng.uniform(0.005, 0.1 if big else 0.5))
            cpu = rng.random() * 40 if big and rng.random() < 0.6 else 0.0
            start = clock(rng)[:5] if tty != "?" else rng.choice(("Dec06", "Dec06", "Nov28"))
            time = f"{rng.randint(0, 300 if big else 9)}:{rng.randint(0, 59):02d}"
            fields = (user, pid, cpu, rss / 160000, vsz, rss, tty, state, start, time)
            out.append(_ps_row(fields, command))
        pid += rng.randint(100, 9000)
        tty = f"pts/{rng.randint(0, 4)}"
        out.append(
            _ps_row((me, pid, 0.0, 0.0, 11084, 4480, tty, "R+", clock(rng)[:5], "0:00"), "ps aux")
        )
        return [line(text[:columns]) for text in out]

    return runs(run, columns, rows, tail=rng.random() < 0.5)


DUMPS: dict[str, Kind] = {
    "ansible-play": ansible_play,
    "dmesg": dmesg,
    "git-graph": git_graph,
    "hexdump-c": hexdump_c,
    "nmap-scan": nmap_scan,
    "ps-aux": ps_aux,
}
