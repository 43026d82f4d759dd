"""A private sshd on 127.0.0.1 for the remote-target tests (stdlib only).

Everything it needs (keys, configs, known_hosts, logs, the remote probe cache)
lives in one temporary directory; the machine's own sshd configuration and
~/.ssh are never read or touched.

As a module:   with Sshd() as sshd: ... sshd.target, sshd.client_config
As a process:  python3 tests/support/sshd_fixture.py serve DIR
               prints one JSON line {"port", "client_config", "target",
               "cache_dir", "pid"} and serves until stdin closes or SIGTERM.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SSHD = "/usr/sbin/sshd"  # sshd refuses to start from a relative path (it re-execs itself)
PRIVSEP_DIR = Path("/run/sshd")
START_TIMEOUT_S = 15.0


class SshdError(RuntimeError):
    """sshd did not come up; the message carries its log."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _keygen(path: Path, comment: str) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    return path.with_suffix(".pub").read_text().strip()


def _children(pid: int) -> list:
    """Pids whose parent is pid, read from /proc (no procps needed)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The comm field may hold spaces and parentheses: the ppid follows the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _descendants(pid: int) -> list:
    out, todo = [], [pid]
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def _is_sshd(pid: int) -> bool:
    try:
        return os.readlink(f"/proc/{pid}/exe") == SSHD
    except OSError:
        return False


class Sshd:
    """One sshd process listening on 127.0.0.1 at a free port."""

    def __init__(self, directory=None):
        self._owns_dir = directory is None
        self.dir = Path(directory or tempfile.mkdtemp(prefix="cs-sshd-")).resolve()
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        self.cache_dir = self.dir / "remote-cache"
        self.cache_dir.mkdir(exist_ok=True)
        self.tmp_dir = self.dir / "remote-tmp"
        self.tmp_dir.mkdir(exist_ok=True)
        self.log_path = self.dir / "sshd.log"
        self.process = None
        self.port = None
        self._generate_keys()
        self._start()

    # -- setup ---------------------------------------------------------------

    def _generate_keys(self):
        keys = self.dir / "keys"
        keys.mkdir(exist_ok=True)
        self.host_key = keys / "host_ed25519"
        self.host_pub = _keygen(self.host_key, "cs-test-host")
        self.user_key = keys / "user_ed25519"
        user_pub = _keygen(self.user_key, "cs-test-user")
        self.authorized_keys = keys / "authorized_keys"
        self.authorized_keys.write_text(user_pub + "\n")
        # Never authorized: for the wrong-key test.
        self.other_key = keys / "other_ed25519"
        _keygen(self.other_key, "cs-test-other")
        # A different host key: for the changed-host-key test.
        self.other_host_pub = _keygen(keys / "other_host_ed25519", "cs-test-other-host")

    def _write_server_config(self):
        self.server_config = self.dir / "sshd_config"
        self.server_config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {self.port}",
                    f"HostKey {self.host_key}",
                    f"AuthorizedKeysFile {self.authorized_keys}",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin prohibit-password",  # the tests run as root
                    "StrictModes no",
                    f"PidFile {self.dir / 'sshd.pid'}",
                    "UsePAM no",
                    # The remote probe cache goes here, not into the user's ~/.cache,
                    # and the host's temporary files into a folder of its own.
                    f"SetEnv XDG_CACHE_HOME={self.cache_dir} TMPDIR={self.tmp_dir}",
                    "LogLevel VERBOSE",
                    "",
                ]
            )
        )

    def _client_config_text(self, identity: Path, known_hosts: Path) -> str:
        hosts = "Host 127.0.0.1 cs-test\n    HostName 127.0.0.1\n"
        return hosts + "".join(
            f"    {line}\n"
            for line in [
                f"Port {self.port}",
                "User root",
                f"IdentityFile {identity}",
                "IdentitiesOnly yes",
                f"UserKnownHostsFile {known_hosts}",
                "GlobalKnownHostsFile /dev/null",
                "StrictHostKeyChecking yes",
                "BatchMode yes",
                "PasswordAuthentication no",
                "ConnectTimeout 10",
            ]
        )

    def _write_client_configs(self):
        host_entry = f"[127.0.0.1]:{self.port}"
        key_type_and_blob = " ".join(self.host_pub.split()[:2])
        self.known_hosts = self.dir / "known_hosts"
        self.known_hosts.write_text(f"{host_entry} {key_type_and_blob}\n")
        self.client_config = self.dir / "ssh_config"
        self.client_config.write_text(self._client_config_text(self.user_key, self.known_hosts))

        wrong_key = self.dir / "ssh_config.wrong_key"
        wrong_key.write_text(self._client_config_text(self.other_key, self.known_hosts))
        self._wrong_key_config = wrong_key

        changed_known = self.dir / "known_hosts.changed"
        changed_known.write_text(f"{host_entry} {' '.join(self.other_host_pub.split()[:2])}\n")
        changed = self.dir / "ssh_config.changed_host_key"
        changed.write_text(self._client_config_text(self.user_key, changed_known))
        self._changed_host_key_config = changed

    def _start(self):
        PRIVSEP_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
        last_error = None
        # A free port can be taken between the probe and sshd's bind: try a few.
        for _ in range(5):
            self.port = _free_port()
            self._write_server_config()
            self._write_client_configs()
            try:
                self._launch()
                return
            except SshdError as error:
                last_error = error
                self._kill_listener()
        raise last_error

    def _launch(self):
        stderr = open(self.dir / "sshd.stderr", "ab")  # sshd holds its own copy of the fd
        try:
            self.process = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(self.server_config), "-E", str(self.log_path)],
                stdin=subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
                # Its own session: a Ctrl-C meant for the tests does not reach it first.
                start_new_session=True,
            )
        finally:
            stderr.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SshdError(f"sshd exited with {self.process.returncode}\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        else:
            raise SshdError(f"sshd did not listen on port {self.port}\n{self.log()}")
        check = self.ssh("true", timeout=START_TIMEOUT_S)
        if check.returncode != 0:
            raise SshdError(
                f"ssh -F {self.client_config} 127.0.0.1 true failed ({check.returncode}): "
                f"{check.stderr.strip()}\n{self.log()}"
            )

    # -- API -----------------------------------------------------------------

    @property
    def target(self) -> str:
        return f"ssh://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def ssh(self, *command, config=None, timeout=30):
        """Runs a command on the host through plain OpenSSH (for checks in tests)."""
        return subprocess.run(
            ["ssh", "-F", str(config or self.client_config), "127.0.0.1", *command],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def wrong_key_config(self) -> Path:
        """A client config that offers a key the server does not accept."""
        return self._wrong_key_config

    def changed_host_key_config(self) -> Path:
        """A client config whose known_hosts holds another key for this host and port."""
        return self._changed_host_key_config

    def log(self) -> str:
        parts = []
        for path in (self.log_path, self.dir / "sshd.stderr"):
            try:
                parts.append(path.read_text(errors="replace"))
            except OSError:
                pass
        return "".join(parts)

    def connection_pids(self) -> list:
        """The per-connection sshd processes (children of the listener and theirs)."""
        if self.process is None:
            return []
        return [p for p in _descendants(self.process.pid) if _is_sshd(p)]

    def cut_connections(self) -> list:
        """Kills every per-connection sshd, as a dropped network would; the listener stays up.

        The commands those sessions ran are left alone, as on a real host whose
        link went down; they see their channel close.
        """
        pids = self.connection_pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return pids

    def _kill_listener(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def stop(self):
        """Stops the listener and every session it forked, and removes its directory."""
        self.cut_connections()
        self._kill_listener()
        if self._owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def info(self) -> dict:
        return {
            "port": self.port,
            "client_config": str(self.client_config),
            "target": self.target,
            "cache_dir": str(self.cache_dir),
            "pid": self.pid,
        }


def _serve(directory: str) -> int:
    """Starts one sshd, prints its JSON line, and serves until stdin closes or SIGTERM."""
    stopping = []

    def on_signal(signum, frame):
        stopping.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        sshd = Sshd(Path(directory) if directory else None)
    except SshdError as error:
        print(error, file=sys.stderr, flush=True)
        return 1
    try:
        print(json.dumps(sshd.info()), flush=True)
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except KeyboardInterrupt:
            pass
    finally:
        sshd.stop()
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] != "serve":
        print("usage: sshd_fixture.py serve [DIR]", file=sys.stderr)
        sys.exit(2)
    sys.exit(_serve(sys.argv[2] if len(sys.argv) == 3 else ""))
