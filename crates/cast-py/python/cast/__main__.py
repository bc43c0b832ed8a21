"""``python -m cast ARGS``: the ``cast`` command installed with this package, for an
environment whose scripts folder is not on PATH."""

import os
import subprocess
import sys

from ._api import binary_path


def main() -> int:
    program = binary_path("cast")
    if program is None:
        sys.stderr.write(
            "cast: the `cast` program is not installed with this package; "
            "reinstall the wheel, or `cargo install --path crates/cast-cli`\n"
        )
        return 2
    argv = [os.fspath(program), *sys.argv[1:]]
    if os.name == "posix":
        os.execv(argv[0], argv)
    return subprocess.call(argv)


if __name__ == "__main__":
    sys.exit(main())
