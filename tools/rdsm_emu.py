"""The emu fabric's settings as the tools see them (rdsm_bench.py --sweep,
rdsm_report.py's sweep tables): the parameters a sweep may vary, their
values in the syntax of `rdsm run --emu` (times 500ns, 5us, 1ms, 1s;
bandwidths 100MB/s, 1GB/s, 64MiB/s, inf), and the presets the launcher
offers, read from `rdsm run --help`.

A network is a dict of the numbers the launcher's --stats file gives under
emu.params: host_overhead_ns, occupancy_ns, latency_ns,
bandwidth_bytes_per_second (None: no limit), interrupt_ns, packet_bytes.

Python 3 standard library only.
"""

import math
import re
from rdsm_build_query import launcher_help

# The cost parameters of the model (Bilas et al., Table 1.1, plus the wire
# latency), in the order tables list them; `packet` sets how occupancy is
# counted, it is not a cost, and is not swept.
SWEEP_PARAMS = ["host_overhead", "occupancy", "latency", "bandwidth", "interrupt"]
KEYS = {"host_overhead": "host_overhead_ns", "occupancy": "occupancy_ns", "latency": "latency_ns",
        "bandwidth": "bandwidth_bytes_per_second", "interrupt": "interrupt_ns", "packet": "packet_bytes"}
TIME_UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
RATE_UNITS = {"B/s": 1.0, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "KiB/s": 1024.0, "MiB/s": 1048576.0,
              "GiB/s": 1073741824.0}
SIZE = re.compile(r"^([0-9]+)(?:([kKmMgGtT])i?[bB]?)?$")  # as the launcher reads sizes: 4096, 4K, 4KiB
SIZE_SHIFTS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}
NUMBER = re.compile(r"^([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+)(.*)$")


class BadValue(ValueError):
    """A setting the launcher would refuse; the message says what it expects."""


def parse_time(name, text):
    """Nanoseconds, as `rdsm run --emu NAME=TEXT` reads them (a bare 0 is allowed)."""
    m = NUMBER.match(text)
    if m:
        v, unit = float(m.group(1)), m.group(2)
        scale = TIME_UNITS.get(unit, 1.0 if unit == "" and v == 0 else None)
        if scale is not None and v * scale <= 1e9:
            return int(v * scale + 0.5)
    raise BadValue("'%s' is not a time up to 1 s; write a number with ns, us, ms or s (e.g. %s=5us)" % (text, name))


def parse_bandwidth(text):
    """Bytes per second, None for no limit (inf, or 0)."""
    if text in ("inf", "0"):
        return None
    m = NUMBER.match(text)
    if m:
        v, scale = float(m.group(1)), RATE_UNITS.get(m.group(2))
        if scale is not None and v > 0 and v * scale >= 1e3:
            return v * scale
    raise BadValue("'%s' is not a bandwidth of at least 1 KB/s; write a number with B/s, KB/s, MB/s or GB/s "
                   "(e.g. bandwidth=1GB/s), or inf for no limit" % text)


def parse_packet(text):
    m = SIZE.match(text)
    if m:
        v = int(m.group(1)) << SIZE_SHIFTS[(m.group(2) or "").lower()]
        if 64 <= v <= 1 << 30:
            return v
    raise BadValue("'%s' is not a packet size from 64 bytes to 1G (e.g. packet=4K)" % text)


def parse_value(name, text):
    """The number of `name` that TEXT sets (the units of a network dict)."""
    if name == "bandwidth":
        return parse_bandwidth(text)
    if name == "packet":
        return parse_packet(text)
    return parse_time(name, text)


def format_value(name, v):
    """A value in the syntax of the settings, short: 0us, 10us, 22500ns, 100MB/s, inf."""
    if name == "bandwidth":
        if v is None:
            return "inf"
        # The largest unit, decimal or binary, in which the value is short (as it was likely written).
        for unit in ("GB/s", "GiB/s", "MB/s", "MiB/s", "KB/s", "KiB/s", "B/s"):
            q = v / RATE_UNITS[unit]
            if q >= 1 and abs(q - round(q, 3)) < 1e-6 * q:
                return ("%.3f" % q).rstrip("0").rstrip(".") + unit
        return "%gMB/s" % (v / 1e6)
    if name == "packet":
        return str(v)
    if v % 1000 == 0:
        return "%dus" % (v // 1000)
    return "%dns" % v


def cost(name, v):
    """A key that orders values from the cheapest network to the dearest: a higher bandwidth costs less."""
    if name == "bandwidth":
        return 0.0 if v is None else 1.0 / v
    return float(v)


def parse_settings(text):
    """[(name, value text)] of "NAME=VALUE,..." (empty: none); raises BadValue."""
    out = []
    for item in (text.split(",") if text else []):
        name, eq, value = item.partition("=")
        if not eq or not value:
            raise BadValue("'%s' is not NAME=VALUE" % item)
        if name not in KEYS:
            raise BadValue("unknown emu parameter '%s'; the parameters are %s and packet" % (
                name, ", ".join(SWEEP_PARAMS)))
        try:
            parse_value(name, value)
        except BadValue as e:
            raise BadValue("%s=%s: %s" % (name, value, e))
        out.append((name, value))
    return out


def parse_sweep(spec):
    """(param, [value texts, each once, in the order given]) of "PARAM=v1,v2,..."; raises BadValue."""
    name, eq, values = spec.partition("=")
    if not eq or not name:
        raise BadValue("'%s' is not PARAM=v1,v2,...; e.g. --sweep interrupt=0us,10us,50us" % spec)
    if name not in SWEEP_PARAMS:
        raise BadValue("unknown emu parameter '%s'; a sweep varies one of %s" % (name, ", ".join(SWEEP_PARAMS)))
    texts = [v.strip() for v in values.split(",")]
    if not values or any(not v for v in texts):
        raise BadValue("%s: an empty value in '%s'; give the values separated by commas, e.g. %s=%s" % (
            name, values, name, "50MB/s,100MB/s,400MB/s" if name == "bandwidth" else "0us,10us,50us"))
    seen, out = set(), []
    for t in texts:
        v = parse_value(name, t)  # raises with the expected syntax
        if v not in seen:
            seen.add(v)
            out.append(t)
    return name, out


def apply_settings(network, settings):
    """A copy of network with [(name, value text)] set on top, as the launcher resolves --emu."""
    out = dict(network)
    for name, text in settings:
        out[KEYS[name]] = parse_value(name, text)
    return out


PRESET_LINE = re.compile(r"^  ([A-Za-z0-9_.-]+): (host_overhead=\S+)\s*$")


def launcher_presets(rdsm):
    """{name: network} of the presets `rdsm run --help` lists, in its order; None if it cannot be read."""
    out = launcher_help(rdsm)
    if out is None:
        return None
    presets = {}
    for line in out.splitlines():
        m = PRESET_LINE.match(line)
        if m:
            try:
                presets[m.group(1)] = apply_settings({}, parse_settings(m.group(2)))
            except BadValue:
                continue
    return presets or None


def same_network(a, b):
    """Whether two networks are one; the launcher writes bandwidths to 9 significant digits."""
    if not isinstance(a, dict) or not isinstance(b, dict) or set(a) != set(b):
        return False
    return all(x == y or (isinstance(x, (int, float)) and isinstance(y, (int, float))
                          and math.isclose(x, y, rel_tol=1e-8)) for x, y in ((a[k], b[k]) for k in a))


def network_of(run):
    """The network of a bench run: as the bench asked for it (which the launcher's record was checked
    against), else as the launcher recorded it; None off the emu fabric."""
    asked = (run.get("emu_point") or {}).get("params")
    return asked if asked is not None else ((run.get("stats") or {}).get("emu") or {}).get("params")


def value_of(run, name):
    net = network_of(run)
    return None if net is None else net.get(KEYS[name], math.nan)


def describe(network, leave_out=None):
    """"host_overhead=3us,occupancy=5us,..." of a network, without parameter leave_out."""
    return ",".join("%s=%s" % (n, format_value(n, network.get(KEYS[n]))) for n in SWEEP_PARAMS
                    if n != leave_out and KEYS[n] in network)
