package fetch

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
)

// gunzipHere decompresses resp's body here when colly would: a gzip
// Content-Encoding the transport left alone, a Content-Type that names
// gzip, or a path ending in .xml.gz. colly decompresses after its body
// limit, so that a small body could inflate without bound (a gzip bomb);
// decompressed here, and the response marked so, the limit counts the
// bytes decompressed.
func gunzipHere(resp *http.Response, req *http.Request) {
	if resp.Uncompressed || resp.Body == nil || resp.Body == http.NoBody {
		return
	}
	ce := strings.ToLower(resp.Header.Get("Content-Encoding"))
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if !strings.Contains(ce, "gzip") && !(ce == "" && strings.Contains(ct, "gzip")) && !strings.HasSuffix(strings.ToLower(req.URL.Path), ".xml.gz") {
		return
	}
	resp.Body = &gunzipBody{rc: resp.Body}
	resp.Uncompressed = true
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
}

// gunzipBody decompresses a gzip body as it is read.
type gunzipBody struct {
	rc io.ReadCloser
	zr *gzip.Reader
}

func (b *gunzipBody) Read(p []byte) (int, error) {
	if b.zr == nil {
		zr, err := gzip.NewReader(b.rc)
		if err != nil {
			return 0, err
		}
		b.zr = zr
	}
	return b.zr.Read(p)
}

func (b *gunzipBody) Close() error {
	if b.zr != nil {
		b.zr.Close() //nolint:errcheck // the body's own Close says what matters
	}
	return b.rc.Close()
}
