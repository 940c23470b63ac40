"""Runs one `rdsm run` job for the benchmark tools, and makes sure it ends.

The launcher is started in a session of its own, so that a launcher that
does not end its own job (one that hangs past its --timeout) can be killed
together with its nodes.  That also keeps the tool's interrupts away from
the job: Ctrl-C goes to the terminal's foreground group and SIGTERM to the
tool alone.  So when the tool is interrupted it ends the job itself, with
SIGTERM to the launcher, which stops its nodes and removes what they made
(shared memory, files), before it stops; a tool that left its job running
would leave the machine busy and its measurements wrong.
"""
import os
import signal
import subprocess

# How long an interrupted launcher gets to end its nodes before the whole
# session is killed.
INTERRUPT_GRACE = 10.0


def stop_on_sigterm():
    """SIGTERM interrupts the tool as Ctrl-C does (KeyboardInterrupt), so
    that it writes the runs done so far and removes its temporary files."""
    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)


def _kill_session(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass  # gone already


def run_job(cmd, timeout):
    """Runs cmd with its output (stdout and stderr) collected.  Returns
    (output bytes, exit status, timed_out); on timeout the job was killed.
    Raises OSError if cmd cannot start, and passes an interrupt on once the
    job has ended."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return out, proc.returncode, False
    except subprocess.TimeoutExpired:
        _kill_session(proc)
        out, _ = proc.communicate()
        return out, proc.returncode, True
    except BaseException:
        proc.terminate()
        try:
            proc.communicate(timeout=INTERRUPT_GRACE)
        except subprocess.TimeoutExpired:
            _kill_session(proc)
            proc.communicate()
        _kill_session(proc)  # a node the launcher could not end
        raise
