package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"zero", Config{}, true},
		{"full", Config{UserAgent: "x", Timeout: time.Second, MaxBodyBytes: 1 << 30, MaxRedirects: 1, Retries: -1,
			RetryBackoff: time.Millisecond, MaxRetryAfter: time.Second, ContentTypes: []string{"*"},
			Proxy: "http://127.0.0.1:3128", HostDelay: time.Second, HostParallelism: 2, RobotsTTL: time.Minute}, true},
		{"https proxy", Config{Proxy: "https://proxy.example:443"}, true},
		{"socks5 proxy", Config{Proxy: "socks5://127.0.0.1:1080"}, true},
		{"negative timeout", Config{Timeout: -1}, false},
		{"negative body", Config{MaxBodyBytes: -1}, false},
		{"body over 1 GiB", Config{MaxBodyBytes: 1<<30 + 1}, false},
		{"negative redirects", Config{MaxRedirects: -1}, false},
		{"negative backoff", Config{RetryBackoff: -time.Second}, false},
		{"negative retry-after cap", Config{MaxRetryAfter: -time.Second}, false},
		{"negative host delay", Config{HostDelay: -time.Millisecond}, false},
		{"negative robots TTL", Config{RobotsTTL: -time.Hour}, false},
		{"negative parallelism", Config{HostParallelism: -1}, false},
		{"proxy without scheme", Config{Proxy: "localhost:3128"}, false},
		{"proxy ftp", Config{Proxy: "ftp://proxy.example"}, false},
		{"proxy unparsable", Config{Proxy: "http://[::1"}, false},
		{"proxy no host", Config{Proxy: "http://"}, false},
		{"content types", Config{ContentTypes: []string{"text/html", "Application/XHTML+XML", "text/plain"}}, true},
		{"content type not a media type", Config{ContentTypes: []string{"text/html", "foo"}}, false},
		{"content type without subtype", Config{ContentTypes: []string{"text/"}}, false},
		{"content type with parameters", Config{ContentTypes: []string{"text/html; charset=utf-8"}}, false},
		{"content type with a space", Config{ContentTypes: []string{" text/html"}}, false},
		{"content type wildcard subtype", Config{ContentTypes: []string{"text/*"}}, false},
		{"content type empty", Config{ContentTypes: []string{""}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok %v", err, tt.ok)
			}
			f, nerr := New(tt.cfg)
			if (nerr == nil) != tt.ok {
				t.Fatalf("New() error = %v, want ok %v", nerr, tt.ok)
			}
			if f != nil {
				_ = f.Close()
			}
		})
	}
}

func TestConfig_withDefaults(t *testing.T) {
	d := Config{}.withDefaults()
	if d.UserAgent != DefaultUserAgent || d.Timeout != 20*time.Second || d.MaxBodyBytes != 10<<20 ||
		d.MaxRedirects != 10 || d.Retries != 2 || d.RetryBackoff != 500*time.Millisecond ||
		d.MaxRetryAfter != time.Minute || len(d.ContentTypes) != 2 || d.RobotsTTL != time.Hour {
		t.Errorf("defaults = %+v", d)
	}
	if r := (Config{Retries: -3}).withDefaults().Retries; r != 0 {
		t.Errorf("Retries -3 became %d, want 0", r)
	}
	if r := (Config{Retries: 5}).withDefaults().Retries; r != 5 {
		t.Errorf("Retries 5 became %d", r)
	}
}

func TestReasonOf(t *testing.T) {
	fe := &Error{URL: urlnorm.MustParse("http://example.com/"), Reason: ReasonRobots}
	tests := []struct {
		err  error
		want Reason
	}{
		{nil, ""},
		{errors.New("plain"), ""},
		{fe, ReasonRobots},
		{fmt.Errorf("crawl: %w", fe), ReasonRobots},
	}
	for _, tt := range tests {
		if got := ReasonOf(tt.err); got != tt.want {
			t.Errorf("ReasonOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestError_Error(t *testing.T) {
	u := urlnorm.MustParse("http://example.com/a")
	inner := errors.New("HTTP 404")
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{URL: u, Reason: ReasonStatus, Status: 404, Err: inner}, "fetch http://example.com/a: status: HTTP 404"},
		{&Error{URL: u, Reason: ReasonRobots}, "fetch http://example.com/a: robots"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(tests[0].err, inner) {
		t.Error("Unwrap does not expose the cause")
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999", (1 << 31) * time.Second, true},
		{"Wed, 01 May 2024 12:00:30 GMT", 30 * time.Second, true},
		{"Wed, 01 May 2024 11:00:00 GMT", 0, true},
		{"Wednesday, 01-May-24 12:01:00 GMT", time.Minute, true},
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "5", "-3", "1e3", "Wed, 01 May 2024 12:00:30 GMT",
		"Sun Nov  6 08:49:37 1994", "9223372036854775807", http.TimeFormat} {
		f.Add(s)
	}
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := retryAfter(v, now)
		if d < 0 {
			t.Errorf("retryAfter(%q) = %v, negative", v, d)
		}
		if !ok && d != 0 {
			t.Errorf("retryAfter(%q) = %v with ok false", v, d)
		}
	})
}
