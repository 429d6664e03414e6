"""The disks the disk scenarios break: tmpfs and ext4 loop mounts made by this run (always undone),
and filling a file system."""
import os
import subprocess


class Mounts:
    """Mounts made by this run, always undone (also on SIGTERM and SIGINT)."""

    def __init__(self):
        self.points = []
        self.loops = []

    def tmpfs(self, point: str, size: str):
        os.makedirs(point, exist_ok=True)
        made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", point], capture_output=True, text=True)
        if made.returncode != 0:
            raise PermissionError(made.stderr.strip() or f"mount exited {made.returncode}")
        self.points.append(point)

    def ext4(self, image: str, point: str, size_mib: int) -> str:
        """An ext4 image on a loop device, mounted errors=remount-ro; the loop device's name."""
        with open(image, "wb") as handle:
            handle.truncate(size_mib * 1024 * 1024)
        made = subprocess.run(["mkfs.ext4", "-q", "-F", image], capture_output=True, text=True)
        if made.returncode != 0:
            raise PermissionError(f"mkfs.ext4: {made.stderr.strip()}")
        attached = subprocess.run(["losetup", "-f", "--show", image], capture_output=True, text=True)
        if attached.returncode != 0:
            raise PermissionError(f"losetup: {attached.stderr.strip()}")
        device = attached.stdout.strip()
        self.loops.append(device)
        os.makedirs(point, exist_ok=True)
        mounted = subprocess.run(["mount", "-o", "errors=remount-ro", device, point], capture_output=True, text=True)
        if mounted.returncode != 0:
            raise PermissionError(f"mount {device}: {mounted.stderr.strip()}")
        self.points.append(point)
        return device

    def remount(self, point: str, mode: str) -> subprocess.CompletedProcess:
        return subprocess.run(["mount", "-o", f"remount,{mode}", point], capture_output=True, text=True)

    def unmount(self, point: str):
        if point in self.points:
            subprocess.run(["umount", point], capture_output=True)
            if not os.path.ismount(point):
                self.points.remove(point)

    def mount_again(self, device: str, point: str) -> subprocess.CompletedProcess:
        mounted = subprocess.run(["mount", "-o", "errors=remount-ro", device, point], capture_output=True, text=True)
        if mounted.returncode == 0:
            self.points.append(point)
        return mounted

    def cleanup(self):
        for point in reversed(self.points):
            subprocess.run(["umount", point], capture_output=True)
            if os.path.ismount(point):
                subprocess.run(["umount", "-l", point], capture_output=True)
        self.points = []
        for device in self.loops:
            subprocess.run(["losetup", "-d", device], capture_output=True)
        self.loops = []


def fill(directory: str) -> int:
    """Writes a file until the file system has no byte left; its size."""
    path = os.path.join(directory, "filler")
    written = 0
    with open(path, "wb", buffering=0) as handle:
        for chunk in (1 << 20, 1 << 16, 1 << 12, 512, 1):
            block = bytes(chunk)
            while True:
                try:
                    handle.write(block)
                    written += chunk
                except OSError:
                    break
        try:
            os.fsync(handle.fileno())
        except OSError:
            pass
    return written
