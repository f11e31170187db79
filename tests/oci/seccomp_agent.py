#!/usr/bin/env python3
# tests/oci/seccomp_agent.py SOCKET OUT: a seccomp agent for the suite.
# It takes the listener from the runtime, answers each notified call
# with EXDEV, and writes what it got to OUT; it ends when the listener
# does (the container's filter is gone).
import array, errno, fcntl, json, socket, struct, sys

path, out = sys.argv[1], sys.argv[2]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(1)
open(out + ".ready", "w").close()
conn, _ = srv.accept()
fds = array.array("i")
msg, anc, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(4))
for level, kind, data in anc:
    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
        fds.frombytes(data[:4])
state = json.loads(msg)
with open(out, "w") as f:
    json.dump(state, f)
    f.write("\n")
listener = fds[0]
NOTIF_RECV, NOTIF_SEND = 0xC0502100, 0xC0182101
while True:
    req = bytearray(80)
    try:
        fcntl.ioctl(listener, NOTIF_RECV, req)
    except OSError:
        break
    nid, pid, flags, nr = struct.unpack_from("=QIIi", req, 0)
    with open(out, "a") as f:
        f.write("call %d\n" % nr)
    resp = struct.pack("=QqiI", nid, 0, -errno.EXDEV, 0)
    try:
        fcntl.ioctl(listener, NOTIF_SEND, bytearray(resp))
    except OSError:
        pass
