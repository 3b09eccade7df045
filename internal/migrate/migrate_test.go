package migrate

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestRead(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_more.sql":  {Data: []byte("CREATE TABLE b (x);")},
		"m/0001_first.sql": {Data: []byte("CREATE TABLE a (x);")},
	}
	ms, err := Read(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0] != (Migration{1, "0001_first.sql", "CREATE TABLE a (x);"}) || ms[1].Version != 2 || ms[1].Name != "0002_more.sql" {
		t.Errorf("Read = %+v, want 0001_first.sql then 0002_more.sql", ms)
	}
	for name, files := range map[string]fstest.MapFS{
		"not named NNNN_name.sql": {"m/0001_a.sql": {}, "m/notes.txt": {}},
		"expected version 2":      {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"expected version 3":      {"m/0001_a.sql": {}, "m/0002_b.sql": {}, "m/0002_c.sql": {}},
	} {
		if _, err := Read(files, "m"); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: error %v, want one saying %q", files, err, name)
		}
	}
}
