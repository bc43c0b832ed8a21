"""The build backend of the `cast` wheel: maturin's, after one step of its own.

maturin builds one kind of artefact per crate: here the PyO3 module `cast._native`. The wheel
must also carry the `cast` command, so before maturin packs a wheel this backend builds the
`cast` and `cast-sandbox` programs (`cast_cli::main` and the sandbox helper, as cast-cli's
binaries; built from this package with `--features wheel-binaries`, the features maturin
builds the module with, so both share one build of every dependency) and copies them into the
wheel's data folder (`[tool.maturin] data`, its `scripts/`) as `cast` and `cast-sandbox`,
which pip installs into the environment's `bin/`.

Every other hook is maturin's own. Run this file to stage the binaries by hand (then
`maturin build --release` packs them too).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import maturin
from maturin import (  # noqa: F401 - the hooks this backend passes through unchanged
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)

HERE = Path(__file__).resolve().parent.parent
SCRIPTS = HERE / "build" / "wheel-data" / "scripts"
# The programs as this package names them, and as the wheel installs them.
BINARIES = {"cast-py-cast": "cast", "cast-py-sandbox": "cast-sandbox"}


def stage_binaries() -> None:
    """Builds the `cast` binaries in release mode and copies them into the data folder."""
    cargo = os.environ.get("CARGO", "cargo")
    command = [cargo, "build", "--release", "--locked", "-p", "cast-py", "--features", "wheel-binaries"]
    for name in BINARIES:
        command += ["--bin", name]
    print("cast_build: " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, cwd=HERE, check=True)
    metadata = subprocess.run(
        [cargo, "metadata", "--format-version", "1", "--no-deps", "--locked"],
        cwd=HERE,
        check=True,
        stdout=subprocess.PIPE,
    )
    target = Path(json.loads(metadata.stdout)["target_directory"]) / "release"
    shutil.rmtree(SCRIPTS, ignore_errors=True)
    SCRIPTS.mkdir(parents=True)
    suffix = ".exe" if sys.platform == "win32" else ""
    for built, installed in BINARIES.items():
        shutil.copy2(target / (built + suffix), SCRIPTS / (installed + suffix))


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    SCRIPTS.mkdir(parents=True, exist_ok=True)  # maturin wants the data folder to exist
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    stage_binaries()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    stage_binaries()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


if __name__ == "__main__":
    stage_binaries()
