package cli

// Binding serve's listeners before anything starts, with an error that
// says what to do, and who holds a busy port.

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// listeners are serve's: the API's and sites' (--addr), and, when set, the
// metrics' (--metrics-addr) and the plain-http redirect's
// (--tls-redirect-addr).
type listeners struct {
	main, metrics, redirect net.Listener
}

// bind listens on every address serve needs, before anything starts, so
// that a busy port stops serve having started no worker and changed no
// data.
func (f *serveFlags) bind() (*listeners, error) {
	l := &listeners{}
	var err error
	if l.main, err = listen("--addr", f.addr); err != nil {
		return nil, err
	}
	if f.metricsAddr != "" {
		if l.metrics, err = listen("--metrics-addr", f.metricsAddr); err != nil {
			l.close()
			return nil, err
		}
	}
	if f.tls.redirectAddr != "" {
		if l.redirect, err = listen("--tls-redirect-addr", f.tls.redirectAddr); err != nil {
			l.close()
			return nil, err
		}
	}
	return l, nil
}

func (l *listeners) close() {
	for _, ln := range []net.Listener{l.main, l.metrics, l.redirect} {
		if ln != nil {
			ln.Close()
		}
	}
}

// listen listens on addr, or says what to do when it cannot: the flag
// (and its variable) that set the address, and for a busy port the
// process that holds it, when that can be told.
func listen(flag, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	setting := fmt.Sprintf("%s (%s)", flag, envName(strings.TrimPrefix(flag, "--")))
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		who := "another process (is another lectern serve running?)"
		if h := portHolder(addr); h != "" {
			who = h
		}
		return nil, fmt.Errorf("%s %s: the address is already in use by %s: stop it, or give %s another address", flag, addr, who, setting)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("%s %s: permission denied: ports below 1024 need root or the CAP_NET_BIND_SERVICE capability (sudo setcap cap_net_bind_service=+ep BINARY, or AmbientCapabilities=CAP_NET_BIND_SERVICE in a systemd unit); or give %s a port above 1023 behind a proxy", flag, addr, setting)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, fmt.Errorf("%s %s: no network interface of this machine has that address: give %s one of its addresses, 127.0.0.1, or 0.0.0.0 for all", flag, addr, setting)
	}
	return nil, fmt.Errorf("%s: listen on %s: %w", flag, addr, err)
}

// portHolder names the process listening on addr's port, on Linux, as
// "process PID (NAME)" (the command's name only: a command line may hold
// secrets), or "a process of user U" when that process cannot be
// inspected; "" when it cannot be told (another system, /proc not
// readable). It reads /proc/net/tcp{,6} for the listening socket's inode,
// then the processes' file descriptors for the socket: a few
// milliseconds, spent only when the port is taken.
func portHolder(addr string) string {
	host, p, err := net.SplitHostPort(addr)
	port, perr := strconv.ParseUint(p, 10, 16)
	if err != nil || perr != nil {
		return ""
	}
	want, _ := netip.ParseAddr(host) // a name or "" matches any address
	inodes := map[string]string{}    // socket inode -> owner's uid
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: listening
				continue
			}
			a, lport, ok := procSocketAddr(f[1])
			if ok && lport == uint16(port) && (!want.IsValid() || want.IsUnspecified() || a.IsUnspecified() || a == want.Unmap()) {
				inodes[f[9]] = f[7]
			}
		}
	}
	if len(inodes) == 0 {
		return ""
	}
	procs, _ := os.ReadDir("/proc")
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", d.Name(), "fd"))
		if err != nil {
			continue // another user's process: not permitted
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join("/proc", d.Name(), "fd", fd.Name()))
			inode, ok := strings.CutPrefix(link, "socket:[")
			if err != nil || !ok {
				continue
			}
			if _, ok := inodes[strings.TrimSuffix(inode, "]")]; ok {
				comm, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
				return fmt.Sprintf("process %d (%s)", pid, strings.TrimSpace(string(comm)))
			}
		}
	}
	for _, uid := range inodes {
		if u, err := user.LookupId(uid); err == nil {
			return fmt.Sprintf("a process of user %s", u.Username)
		}
		return "a process of user id " + uid
	}
	return ""
}

// procSocketAddr decodes an address of /proc/net/tcp{,6}: "0100007F:1F90"
// is 127.0.0.1:8080. Each 32-bit word of the address is written as a
// number in the machine's byte order.
func procSocketAddr(s string) (netip.Addr, uint16, bool) {
	h, p, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(p, 16, 16)
	raw, herr := hex.DecodeString(h)
	if !ok || err != nil || herr != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, 0, false
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(b)
	return a.Unmap(), uint16(port), true
}
