package cli

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/pflag"

	"lectern.dev/lectern"
)

// hostFlags are the settings that name the server's own hosts, which no
// project may use as a domain; serve and admin project create share them.
type hostFlags struct {
	publicURL     string
	reservedHosts string
}

func (h *hostFlags) register(fs *pflag.FlagSet, publicURLHelp string) {
	fs.StringVar(&h.publicURL, "public-url", "", publicURLHelp)
	fs.StringVar(&h.reservedHosts, "reserved-hosts", "", "comma-separated host names (or *.example.com for every subdomain) that are the server's own: "+
		"the API answers there, and no project may use them as a domain")
}

// checkPublicURL refuses a public URL that is not http:// or https://.
func checkPublicURL(u string) error {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fmt.Errorf("--public-url %q must start with http:// or https://", u)
	}
	return nil
}

// serverHosts returns the server's own hosts: those every server has, the
// public URL's host, the listen address's host (addr may be empty) and the
// reserved hosts. Errors name the setting at fault.
func (h *hostFlags) serverHosts(addr string) (*lectern.ServerHosts, error) {
	if _, err := lectern.NewServerHosts(h.publicURL); err != nil {
		return nil, fmt.Errorf("--public-url %q: its host is not a host name", h.publicURL)
	}
	if _, err := lectern.NewServerHosts(addr); err != nil {
		return nil, fmt.Errorf("--addr %q: its host is not a host name", addr)
	}
	reserved := strings.Split(h.reservedHosts, ",")
	hosts, err := lectern.NewServerHosts(append([]string{h.publicURL, addr}, reserved...)...)
	if err != nil {
		return nil, fmt.Errorf("--reserved-hosts: %s", lectern.ErrorMessage(err))
	}
	return hosts, nil
}

// warnServerHostDomains logs a warning for each project domain that is one
// of the server's own hosts (stored before such domains were refused): the
// server answers on those itself and never serves the project's site there.
func warnServerHostDomains(log *slog.Logger, projects []*lectern.Project, hosts *lectern.ServerHosts) {
	for _, p := range projects {
		for _, d := range p.Domains {
			if hosts.Contains(d) {
				log.Warn("a project domain is one of the server's own hosts (an IP address, a loopback name, the public URL's or listen address's host, or a reserved host): "+
					"the server answers on it itself and never serves the project's site there; give the project another domain", "project", p.ID, "domain", d)
			}
		}
	}
}
