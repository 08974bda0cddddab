package monitor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// maxURLLength bounds a webhook URL.
const maxURLLength = 2048

// errPrivate refuses a webhook target on a private network.
var errPrivate = errors.New("webhook target is a loopback, private or link-local address (roost serve --webhook-private=false)")

// checkWebhook validates a webhook URL (nil: none): storable text
// (social.CheckText), absolute, http or https, a host, and, unless private targets are allowed, no host that is
// or resolves to a private address. Delivery checks the address it dials
// again (see newClient): a name may resolve elsewhere later.
func (s *Service) checkWebhook(ctx context.Context, param string, raw *string) error {
	if raw == nil {
		return nil
	}
	if len(*raw) > maxURLLength {
		return &Invalid{param, fmt.Sprintf("is longer than %d bytes", maxURLLength)}
	}
	if err := social.CheckText(*raw); err != nil {
		return &Invalid{param, err.Error()}
	}
	u, err := url.Parse(*raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return &Invalid{param, "must be an http or https URL with a host (and no user:password)"}
	}
	if s.opt.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if private(ip) {
			return &Invalid{param, "is a private or loopback address, which this server does not call"}
		}
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
	if err != nil {
		return &Invalid{param, "has a host that does not resolve"}
	}
	for _, ip := range ips {
		if private(ip) {
			return &Invalid{param, "resolves to a private or loopback address, which this server does not call"}
		}
	}
	return nil
}

// cgnat is the shared address space of carrier-grade NAT.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// private reports whether ip is not on the public internet: loopback,
// private, link-local, unspecified, multicast or shared (CGNAT).
func private(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() || cgnat.Contains(ip)
}

// newClient is the delivery client: no proxy, no redirects followed, a
// timeout per request, and (unless private targets are allowed) a dialer
// that refuses private addresses as it connects, whatever a name resolved
// to at registration.
func newClient(opt Options) *http.Client {
	d := &net.Dialer{Timeout: opt.Timeout}
	if !opt.AllowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || private(ap.Addr()) {
				return errPrivate
			}
			return nil
		}
	}
	tr := &http.Transport{Proxy: nil, DialContext: d.DialContext, MaxIdleConnsPerHost: 4,
		IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: opt.Timeout, ResponseHeaderTimeout: opt.Timeout}
	return &http.Client{Transport: tr, Timeout: opt.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
