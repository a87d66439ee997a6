"""Run every benchmark in bench/ and print its figures (`make bench`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = [
    "mcp_spawn.py",
    "capture_pipeline.py",
    "png_writers.py",
    "observe_vs_pipeline.py",
    "observe_vs_pipeline_sway.py",
    "ocr_corpus.py",
    "ocr_real.py",
    "ax_read.py",
    "scaling_legibility.py",
    "store_100k.py",
    "console.py",
    "thumbnails.py",
    "redact_detect.py",
    "http_token.py",
]

if __name__ == "__main__":
    here = Path(__file__).parent
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        subprocess.run([sys.executable, str(here / name)], check=True)
