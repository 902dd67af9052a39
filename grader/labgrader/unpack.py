"""A submission is hostile input: its main.c, read within bounds from a
file, a folder, a tar or a zip, never through a link, a FIFO or a
device."""
import bz2
import errno
import gzip
import lzma
import os
import posixpath
import stat
import struct
import tarfile
import zipfile

from .lab import SETTINGS
from .text import safe


# What the host reads of one submission.  Honest ones are far below each
# limit (a lab folder is a few files, its main.c some 20 KB); without them
# a small archive of 200,000 empty members cost 176 MB and 3.5 s, linearly.
MAIN_MAX = SETTINGS["MAIN_C_BYTES"]  # main.c, as every compile reads it
MEMBERS_MAX = 10000      # entries examined: a folder's or an archive's
BYTES_MAX = 20000000     # bytes read from one archive, decompressed
SECONDS_MAX = 5          # to read one submission
MEMORY_MAX = 512 << 20   # the unpack's address space: a backstop only


class Refused(Exception):
    """A submission the host will not read; the text says why."""


def kind_of(mode):
    """What a file that is not a regular file is, in words."""
    for test, what in ((stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return what + ", not a regular file"
    return "not a regular file"


def open_regular(path, dir_fd=None):
    """A binary file of path if it is a regular file, else Refused with
    what it is.  lstat first, so that a device is never even opened (an
    open can act: a tape rewinds); then the open itself follows no link
    (O_NOFOLLOW: a link put in place since is ELOOP) and cannot block
    (O_NONBLOCK: a FIFO put in place since), and fstat checks what was
    opened.  Only the last component is guarded: the folder is the
    instructor's, or one that os.fwalk opened without following links."""
    try:
        st = os.lstat(path, dir_fd=dir_fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(kind_of(st.st_mode))
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |
                     os.O_NOCTTY, dir_fd=dir_fd)
    except OSError as e:
        raise Refused(kind_of(stat.S_IFLNK) if e.errno == errno.ELOOP else
                      "unreadable (%s)" % e.strerror) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise Refused(kind_of(st.st_mode))
    return os.fdopen(fd, "rb")


class Capped:
    """A file's bytes, at most `cap` of them: an archive's decompressed
    stream, so that a small bomb cannot make tarfile read gigabytes."""

    def __init__(self, f, cap):
        self.f, self.left = f, cap

    def read(self, n=-1):
        if n is None or n < 0 or n > self.left:
            # tarfile asks for one member's data or one header at a time:
            # more than is left is refused before a byte is read.
            more = self.f.read(self.left + 1)
            if len(more) > self.left:
                raise Refused("more than %d MB once decompressed" %
                              (BYTES_MAX // 1000000))
            self.left -= len(more)
            return more
        data = self.f.read(n)
        self.left -= len(data)
        return data


def rank(name):
    """Which main.c of a submission is used: the one under a folder lab/,
    else the shallowest (the smallest rank)."""
    return ("/lab/" not in "/" + name, name.count("/"), name)


class Pick:
    """The main.c chosen so far (its rank, its bytes, or the name of one
    too large to use), the entries seen and the bytes read, and what was
    skipped, for the log."""

    def __init__(self, label):
        self.label, self.skipped = label, []
        self.best = self.data = self.big = None
        self.seen = self.bytes = 0

    def count(self):
        self.seen += 1
        if self.seen > MEMBERS_MAX:
            raise Refused("more than %d entries" % MEMBERS_MAX)

    def better(self, name):
        return self.best is None or rank(name) < self.best

    def take(self, name, size, read):
        """main.c at name, of size bytes; read() gives at most
        MAIN_MAX + 1 of them.  One too large is refused only if it stays
        the best: a better one may come later in an archive."""
        data = read() if size <= MAIN_MAX else b""
        # Every candidate read counts: an archive of 10,000 main.c files,
        # each better than the one before, is one way to read gigabytes.
        self.bytes += len(data)
        if self.bytes > BYTES_MAX:
            raise Refused("more than %d MB read" % (BYTES_MAX // 1000000))
        too_big = size > MAIN_MAX or len(data) > MAIN_MAX  # or it lied
        self.best = rank(name)
        self.data, self.big = (None, name) if too_big else (data, None)

    def skip(self, name, why):
        self.skipped.append("%s: %s is %s: skipped" % (
            self.label, safe(name), why))


def unpack_folder(pick, top):
    """main.c in a folder: os.fwalk opens each folder without following a
    link, and never descends into a linked one."""
    for path, dirs, files, dfd in os.fwalk(top, follow_symlinks=False):
        rel = os.path.relpath(path, top)
        rel = "" if rel == "." else rel + "/"
        if rel.count("/") > 32:
            raise Refused("folders nested deeper than 32")
        for fn in dirs + files:
            pick.count()
        for fn in files:
            if fn != "main.c" or not pick.better(rel + fn):
                continue
            try:
                f = open_regular(fn, dir_fd=dfd)
            except Refused as e:
                pick.skip(rel + fn, str(e))
                continue
            with f:
                pick.take(rel + fn, os.fstat(f.fileno()).st_size,
                          lambda: f.read(MAIN_MAX + 1))


def zip_end(f):
    """(members, central directory bytes) that a zip's end record
    declares: zipfile reads all of the central directory when it opens
    an archive, before a member can be counted.  None: no end record."""
    size = f.seek(0, 2)
    f.seek(max(0, size - 65557))
    tail = f.read()
    # The last record with its 22 bytes whole; a zip64 locator before it
    # would make zipfile read other sizes: no lab needs zip64.
    i = tail.rfind(b"PK\x05\x06", 0, max(0, len(tail) - 18))
    if i < 0:
        return None
    if i >= 20 and tail[i - 20:i - 16] == b"PK\x06\x07":
        return (1 << 32, 1 << 32)
    return struct.unpack("<HI", tail[i + 10:i + 16])


def unpack_zip(pick, f):
    end = zip_end(f)
    if end is None:
        raise Refused("a damaged zip (no end record)")
    n, cd = end
    if n > MEMBERS_MAX or cd > MEMBERS_MAX * 300:
        raise Refused("more than %d entries" % MEMBERS_MAX)
    f.seek(0)
    with zipfile.ZipFile(f) as z:
        for info in z.infolist():
            pick.count()
            name = info.filename
            if posixpath.basename(name) != "main.c" or \
                    not pick.better(name):
                continue
            # A zip made on Unix keeps the file's type and mode in the top
            # of external_attr (a link's member holds its target's path).
            kind = stat.S_IFMT(info.external_attr >> 16)
            if info.is_dir() or kind not in (0, stat.S_IFREG):
                pick.skip(name, kind_of(kind) if kind else "a folder")
            elif info.flag_bits & 1:
                pick.skip(name, "encrypted")
            else:
                # z.open reads at most the declared size, and so does a
                # bounded read(); the declared size is checked first.
                def read(info=info):
                    with z.open(info) as m:
                        return m.read(MAIN_MAX + 1)
                pick.take(name, info.file_size, read)


def tar_stream(f):
    """A tar's bytes, decompressed here (gzip, bzip2, xz) and capped:
    tarfile's own decompression knows no bound."""
    magic = f.read(6)
    f.seek(0)
    if magic[:2] == b"\x1f\x8b":
        f = gzip.GzipFile(fileobj=f, mode="rb")
    elif magic[:3] == b"BZh":
        f = bz2.BZ2File(f)
    elif magic == b"\xfd7zXZ\x00":
        f = lzma.LZMAFile(f)
    return Capped(f, BYTES_MAX)


def unpack_tar(pick, t):
    """main.c in a tar read as a stream: one member at a time, none kept
    but the one chosen; a link (symbolic or hard) named main.c is never
    followed."""
    for m in t:
        pick.count()
        t.members = []  # tarfile keeps every member read: keep none
        if posixpath.basename(m.name) != "main.c" or \
                not pick.better(m.name):
            continue
        if m.issym() or m.islnk():
            pick.skip(m.name, "a %s link, not a regular file" % (
                "symbolic" if m.issym() else "hard"))
        elif not m.isreg():
            pick.skip(m.name, "not a regular file")
        else:
            pick.take(m.name, m.size,
                      lambda m=m: t.extractfile(m).read(MAIN_MAX + 1))


def read_submission(sub, label):
    """The Pick of a submission: a regular file (main.c, a zip or a tar,
    told by their bytes) or a folder; never a link, a FIFO or a device.
    Refused when it is none of those or passes a limit."""
    pick = Pick(label)
    try:
        st = os.lstat(sub)
    except OSError as e:
        raise Refused("unreadable (%s)" % e.strerror) from None
    if stat.S_ISDIR(st.st_mode):
        unpack_folder(pick, sub)
        return pick
    with open_regular(sub) as f:
        if zipfile.is_zipfile(f):
            unpack_zip(pick, f)
            return pick
        f.seek(0)
        try:
            t = tarfile.open(fileobj=tar_stream(f), mode="r|")
        except tarfile.TarError:
            t = None  # not a tar: the file is main.c itself
        if t is not None:
            with t:
                unpack_tar(pick, t)
            return pick
        f.seek(0)
        pick.take(os.path.basename(sub), os.fstat(f.fileno()).st_size,
                  lambda: f.read(MAIN_MAX + 1))
    return pick
