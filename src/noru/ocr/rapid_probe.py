"""Is the optional RapidOCR engine installed here, with the models its wheel ships?

Answers from the installed files alone: nothing heavy is imported (not
rapidocr, onnxruntime, numpy nor OpenCV), so ``noru doctor`` stays quick and
the answer is the same one the engine gets when it is made.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

from noru.ocr.base import EngineStatus

__all__ = [
    "INSTALL_ADVICE",
    "MODELS",
    "NAME",
    "REINSTALL_ADVICE",
    "missing",
    "model_folder",
    "package_version",
    "probe",
]

NAME = "rapidocr"
INSTALL_ADVICE = "pip install 'noru[rapidocr]'"
REINSTALL_ADVICE = "pip install --force-reinstall 'noru[rapidocr]'"
# The files the rapidocr 3.10 wheel ships in rapidocr/models: text detection,
# text recognition (its character list in the model's metadata), and the
# 0/180 degree line classifier.
MODELS = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


def model_folder() -> Path | None:
    """The installed rapidocr package's ``models`` folder, found without importing it."""
    try:
        spec = importlib.util.find_spec("rapidocr")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def package_version() -> str | None:
    """``3.10.0``: the installed rapidocr distribution, or None."""
    try:
        return importlib.metadata.version("rapidocr")
    except importlib.metadata.PackageNotFoundError:
        return None


def missing() -> str | None:
    """What keeps the engine from running here, with the fix; None when nothing."""
    folder = model_folder()
    version = package_version()
    if folder is None or version is None:
        return f"rapidocr is not installed: {INSTALL_ADVICE}"
    if importlib.util.find_spec("onnxruntime") is None:
        return f"onnxruntime is not installed: {INSTALL_ADVICE}"
    absent = [name for name in MODELS.values() if not (folder / name).is_file()]
    if absent:
        return (
            f"rapidocr {version} has no bundled {', '.join(absent)} in {folder}; "
            f"Noru never downloads models: {REINSTALL_ADVICE}"
        )
    return None


def probe() -> EngineStatus:
    """For ``noru doctor``: version and model folder, or what to install."""
    problem = missing()
    if problem is not None:
        return EngineStatus(NAME, False, problem=problem)
    return EngineStatus(NAME, True, version=package_version(), data_path=model_folder())
