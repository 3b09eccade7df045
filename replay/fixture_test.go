package replay

import (
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
)

// testOptions are the fixtures' label and group precedence (WebKB's,
// whose labels and groups the fixtures use).
var testOptions = Options{
	LabelPrecedence: []string{"course", "faculty", "student", "staff", "project", "department", "other"},
	GroupPrecedence: []string{"cornell", "texas", "washington", "wisconsin", "misc"},
}

// openSite opens the site from a folder.
func openSite(t testing.TB) *Archive {
	t.Helper()
	a, err := Open(collectiontest.WriteSiteDir(t), testOptions)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
