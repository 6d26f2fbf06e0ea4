package hub

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DefaultEndpoint is the hub's address when neither Client.Endpoint nor
// HF_ENDPOINT names another.
const DefaultEndpoint = "https://huggingface.co"

// maxRedirects bounds a chain of redirects, as net/http's default policy does.
const maxRedirects = 10

// Client talks to one hub. The zero Client is usable: it talks to
// DefaultEndpoint without a token over http.DefaultClient. A Client is safe
// for concurrent use, but two Pulls of the same file at once share one
// partial file and must not run together.
type Client struct {
	// Endpoint is the hub's base URL, e.g. "https://huggingface.co" or a
	// mirror; "" means DefaultEndpoint.
	Endpoint string
	// Token is a hub access token, sent as "Authorization: Bearer" to the
	// endpoint's host only, never to the CDN a download redirects to.
	Token string
	// HTTP makes the requests; nil means http.DefaultClient. Its redirect
	// policy is not used: the client follows redirects itself.
	HTTP *http.Client
	// Attempts is how many times Pull tries a download that breaks off
	// before it gives up and leaves the partial file; 0 means 3.
	Attempts int
	// UserAgent is sent with every request; "" means "memd".
	UserAgent string

	backoff    time.Duration // pause between tries; 0 means a second per try so far
	stall      time.Duration // how long a download may go without data; 0 means a minute
	answerWait time.Duration // how long a request may wait for the response's headers; 0 means answerWait
}

// answerWait bounds the wait for a response's headers: a server that
// accepts the connection and never answers held `memctl model pull` for as
// long as it liked (94s seen, with no end). The body's own pace is the
// download's stall limit.
const answerWait = 30 * time.Second

// transports holds one transport per header wait, so connections are
// reused across requests.
var transports sync.Map // time.Duration → *http.Transport

func transportFor(wait time.Duration) *http.Transport {
	if t, ok := transports.Load(wait); ok {
		return t.(*http.Transport)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = wait
	actual, _ := transports.LoadOrStore(wait, t)
	return actual.(*http.Transport)
}

// FromEnv is a Client configured the way huggingface_hub reads the
// environment: HF_ENDPOINT for the hub, HF_TOKEN for the token, else the
// token file that `hf auth login` writes (HF_TOKEN_PATH, else
// $HF_HOME/token, else ~/.cache/huggingface/token).
func FromEnv() *Client {
	return &Client{
		Endpoint: strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/"),
		Token:    tokenFromEnv(os.Getenv),
	}
}

func tokenFromEnv(getenv func(string) string) string {
	if t := strings.TrimSpace(getenv("HF_TOKEN")); t != "" {
		return t
	}
	path := getenv("HF_TOKEN_PATH")
	if path == "" {
		home := getenv("HF_HOME")
		if home == "" {
			cache := getenv("XDG_CACHE_HOME")
			if !filepath.IsAbs(cache) {
				h, err := os.UserHomeDir()
				if err != nil {
					return ""
				}
				cache = filepath.Join(h, ".cache")
			}
			home = filepath.Join(cache, "huggingface")
		}
		path = filepath.Join(home, "token")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (c *Client) endpoint() (*url.URL, error) {
	e := c.Endpoint
	if e == "" {
		e = DefaultEndpoint
	}
	u, err := url.Parse(strings.TrimRight(e, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("hub endpoint %q is not an http(s) URL: fix HF_ENDPOINT", e)
	}
	return u, nil
}

// resolveURL is the hub's download route for one file at one revision. The
// revision is escaped whole ("refs/pr/1" → "refs%2Fpr%2F1"), the file path
// segment by segment, as huggingface_hub does.
func (c *Client) resolveURL(repo, rev, file string) (*url.URL, error) {
	base, err := c.endpoint()
	if err != nil {
		return nil, err
	}
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return base.Parse(base.Path + "/" + repo + "/resolve/" + url.PathEscape(rev) + "/" + strings.Join(segs, "/"))
}

// do sends req and follows redirects itself, so that the token goes to the
// endpoint's host alone (net/http would forward it to any host of the same
// name, whatever the port, and to subdomains such as a CDN's). follow says
// whether to follow a redirect to the given URL; when it declines, the
// redirect response itself is returned.
func (c *Client) do(req *http.Request, follow func(to *url.URL) bool) (*http.Response, error) {
	base, err := c.endpoint()
	if err != nil {
		return nil, err
	}
	wait := c.answerWait
	if wait <= 0 {
		wait = answerWait
	}
	hc := http.Client{Transport: transportFor(wait), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if c.HTTP != nil {
		hc = *c.HTTP
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "memd"
	}
	for hop := 0; ; hop++ {
		req.Header.Set("User-Agent", ua)
		// Identity keeps Content-Length the file's size and byte ranges
		// ranges of the file, not of a compressed stream.
		req.Header.Set("Accept-Encoding", "identity")
		req.Header.Del("Authorization")
		if c.Token != "" && req.URL.Scheme == base.Scheme && req.URL.Host == base.Host {
			req.Header.Set("Authorization", "Bearer "+c.Token)
		}
		resp, err := hc.Do(req)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && req.Context().Err() == nil {
			return nil, fmt.Errorf("%s %s: the server took the connection but sent no answer within %v: %w",
				req.Method, req.URL.Redacted(), wait, err)
		}
		if err != nil {
			return nil, err
		}
		if !isRedirect(resp.StatusCode) {
			return resp, nil
		}
		to, err := resp.Location()
		if err != nil || !follow(to) {
			return resp, nil
		}
		drain(resp)
		if hop == maxRedirects {
			return nil, fmt.Errorf("%s %s: more than %d redirects", req.Method, req.URL.Redacted(), maxRedirects)
		}
		next := req.Clone(req.Context())
		next.URL = to
		next.Host = ""
		req = next
	}
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// statusError turns a failed hub response into an error a person can act
// on. The hub names the cause in X-Error-Code (RepoNotFound,
// RevisionNotFound, EntryNotFound, GatedRepo) and explains in
// X-Error-Message; a private or missing repo answers 401 to a request
// without a token.
func (c *Client) statusError(resp *http.Response, repo, file, rev string) error {
	code := resp.Header.Get("X-Error-Code")
	why := resp.Header.Get("X-Error-Message")
	if why != "" {
		why = " (the hub says: " + why + ")"
	}
	page := strings.TrimRight(c.Endpoint, "/")
	if page == "" {
		page = DefaultEndpoint
	}
	page += "/" + repo
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		if code == "RepoNotFound" && c.Token == "" {
			return fmt.Errorf("no repo %s on the hub, or it is private: check the name, or set HF_TOKEN for a private repo%s: %w", repo, why, ErrNotFound)
		}
		if c.Token != "" && code == "GatedRepo" {
			return fmt.Errorf("the token in HF_TOKEN has no access to the gated repo %s yet: accept the licence on %s while logged in as the token's user%s: %w", repo, page, why, ErrUnauthorized)
		}
		if c.Token != "" {
			return fmt.Errorf("the hub refused the token for %s: check that HF_TOKEN is valid and that you accepted the licence on %s%s: %w", repo, page, why, ErrUnauthorized)
		}
		return fmt.Errorf("this repo needs a token: set HF_TOKEN (and accept the licence on the model page, %s)%s: %w", page, why, ErrUnauthorized)
	case resp.StatusCode == http.StatusNotFound:
		switch code {
		case "RepoNotFound":
			return fmt.Errorf("no repo %s on the hub: check the name%s: %w", repo, why, ErrNotFound)
		case "RevisionNotFound":
			return fmt.Errorf("no revision %s in repo %s: check the branch, tag or commit%s: %w", rev, repo, why, ErrNotFound)
		}
		return fmt.Errorf("no file %s in repo %s at revision %s: see the repo's files on %s%s: %w", file, repo, rev, page, why, ErrNotFound)
	case resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("the hub is rate-limiting requests for %s: wait a minute and try again%s", repo, why)
	default:
		return fmt.Errorf("the hub answered %s for %s in %s%s", resp.Status, file, repo, why)
	}
}
