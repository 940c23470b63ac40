"""What a build of rdsm offers, for the tools that drive it (microbench.py,
rdsm_bench.py): the programs it built and the protocol presets its launcher
knows.  Python 3 standard library only."""

import os
import re
import subprocess


def find_program(build, name):
    """The path of program `name` in the build (its apps/ first), or None."""
    for cand in (os.path.join(build, "apps", name), os.path.join(build, name)):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def launcher_help(rdsm):
    """What `rdsm run --help` prints, or None if it cannot be run."""
    try:
        return subprocess.run([rdsm, "run", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=30, check=False).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return None


def preset_of(protocol):
    """The preset a protocol name starts with: "sc" of "sc+fetch=message" (a preset with axes on top, as a
    run names it; rdsm run --protocol takes either)."""
    return protocol.split("+", 1)[0]


def launcher_protocols(rdsm):
    """The presets `rdsm run --help` lists, or None if it cannot be read."""
    out = launcher_help(rdsm)
    if out is None:
        return None
    m = re.search(r"^protocols:\s*(.+)$", out, re.MULTILINE)
    if not m:
        return None
    names = [p.strip() for p in m.group(1).split(",") if p.strip()]
    return names or None
