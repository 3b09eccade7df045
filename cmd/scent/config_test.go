package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestApplyConfig_sections: a section named after a command sets that
// command's flags and never becomes the value of a flag of the same name
// (export's --crawl, report's --labels).
func TestApplyConfig_sections(t *testing.T) {
	t.Setenv("SCENT_MAX_PAGES", "")
	t.Setenv("SCENT_CRAWL", "")
	t.Setenv("SCENT_LABELS", "")
	cfg := filepath.Join(t.TempDir(), "scent.yaml")
	os.WriteFile(cfg, []byte("crawl:\n  max-pages: 5\n  workers: 3\nlabels:\n  rule: true\nreport:\n  every: 4\n"), 0o644)
	for _, tc := range []struct{ cmd, flag, want string }{
		{"crawl", "max-pages", "5"},
		{"crawl", "workers", "3"},
		{"export", "crawl", ""},
		{"report", "crawl", "[]"},
		{"report", "labels", ""},
		{"report", "every", "4"},
		{"dedup", "crawl", ""},
	} {
		c, _, err := newRootCmd().Find([]string{tc.cmd})
		if err != nil {
			t.Fatal(err)
		}
		if err := applyConfig(c, cfg); err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		if got := c.Flags().Lookup(tc.flag).Value.String(); got != tc.want {
			t.Errorf("%s --%s = %q, want %q", tc.cmd, tc.flag, got, tc.want)
		}
	}
	// A scalar top-level key named like a command is the flag.
	os.WriteFile(cfg, []byte("crawl: mine\n"), 0o644)
	c, _, _ := newRootCmd().Find([]string{"export"})
	if err := applyConfig(c, cfg); err != nil {
		t.Fatal(err)
	}
	if got := c.Flags().Lookup("crawl").Value.String(); got != "mine" {
		t.Errorf("export --crawl from a top-level key = %q, want mine", got)
	}
}

func TestApplyConfig_unknownKeys(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ file, want string }{
		{"max-pagez: 5\n", `"max-pagez"`},
		{"max-pagez: 5\n", `did you mean "max-pages"`},
		{"crawl:\n  max-pagez: 5\n", `"crawl.max-pagez"`},
		{"crawl:\n  max-pagez: 5\n", `did you mean "max-pages"`},
		{"crawl:\n  every: 5\n", `command crawl has no flag --every`},
		{"crawll:\n  workers: 5\n", `did you mean "crawl"`},
		{"zzzzzzzzzzzz: 1\n", `unknown key "zzzzzzzzzzzz"`},
		{"max-pages:\n  x: 1\n", `key "max-pages" holds a mapping, not a value for --max-pages`},
		{"crawl:\n  workers:\n    a: 1\n", `key "crawl.workers" holds a mapping, not a value for --workers`},
	} {
		cfg := filepath.Join(dir, "scent.yaml")
		os.WriteFile(cfg, []byte(tc.file), 0o644)
		c, _, _ := newRootCmd().Find([]string{"export"})
		err := applyConfig(c, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %s", tc.file, err, tc.want)
		}
	}
}

// TestApplyConfig_emptyValues: a key present with no value (YAML's
// "key:" or null, JSON's null) is refused naming the key and the file,
// not left to the flag's default; an empty string is a value.
func TestApplyConfig_emptyValues(t *testing.T) {
	t.Setenv("SCENT_MAX_PAGES", "")
	t.Setenv("SCENT_DB", "")
	t.Setenv("SCENT_DELAY", "")
	dir := t.TempDir()
	for _, tc := range []struct{ name, file, want string }{
		{"scent.yaml", "max-pages:\n", `key "max-pages" has no value`},
		{"scent.yaml", "db:\nworkers: 2\n", `key "db" has no value`},
		{"scent.yaml", "db: ~\n", `key "db" has no value`},
		{"scent.yaml", "db: null\n", `key "db" has no value`},
		{"scent.yaml", "crawl:\n  delay:\n", `key "crawl.delay" has no value`},
		{"scent.yaml", "crawl:\n", `key "crawl" has no value`},
		{"scent.json", `{"max-pages": null}`, `key "max-pages" has no value`},
		{"scent.json", `{"crawl": {"db": null}}`, `key "crawl.db" has no value`},
	} {
		cfg := filepath.Join(dir, tc.name)
		os.WriteFile(cfg, []byte(tc.file), 0o644)
		c, _, _ := newRootCmd().Find([]string{"crawl"})
		err := applyConfig(c, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "config file "+cfg) {
			t.Errorf("%q: error %v, want one naming %s and containing %s", tc.file, err, cfg, tc.want)
		}
	}
	for _, tc := range []struct{ name, file string }{
		{"scent.yaml", "db: \"\"\n"},
		{"scent.json", `{"db": ""}`},
		{"scent.toml", "db = \"\"\n"},
	} {
		cfg := filepath.Join(dir, tc.name)
		os.WriteFile(cfg, []byte(tc.file), 0o644)
		c, _, _ := newRootCmd().Find([]string{"crawl"})
		if err := applyConfig(c, cfg); err != nil {
			t.Errorf("%q: %v", tc.file, err)
		}
	}
	// As a user runs it: refused before anything is crawled.
	cfg := filepath.Join(dir, "scent.yaml")
	os.WriteFile(cfg, []byte("max-pages:\n"), 0o644)
	seeds := writeSeeds(t, dir, "seed http://127.0.0.1:1/\n")
	db := filepath.Join(dir, "c.db")
	if out, err := runScent(t, "crawl", "--config", cfg, "--seeds", seeds, "--db", db); err == nil || !strings.Contains(err.Error(), `key "max-pages" has no value`) {
		t.Errorf("crawl --config with max-pages and no value: error %v\n%s", err, out)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the crawl's database was written")
	}
}

// TestConfig_exportAfterCrawlSection runs the command as a user does:
// a scent.yaml with a crawl section in the working directory must not
// break export.
func TestConfig_exportAfterCrawlSection(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "scent.yaml"), []byte("crawl:\n  max-pages: 5\n"), 0o644)
	db := dupStore(t)
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	out, err := runScent(t, "export", "--db", db)
	if err != nil {
		t.Fatalf("export with a crawl section in scent.yaml: %v\n%s", err, out)
	}
}

// TestApplyConfig_jsonNumbers: a JSON config's numbers (float64 to
// viper) set integer flags from a million on and fractions as they are;
// a bad value names where it came from.
func TestApplyConfig_jsonNumbers(t *testing.T) {
	for _, v := range []string{"SCENT_MAX_FRONTIER", "SCENT_MAX_BODY", "SCENT_LEARN_PRIOR", "SCENT_WORKERS"} {
		t.Setenv(v, "")
	}
	cfg := filepath.Join(t.TempDir(), "scent.json")
	os.WriteFile(cfg, []byte(`{"crawl": {"max-frontier": 1000000, "max-body": 10485760, "learn-prior": 0.25}}`), 0o644)
	c, _, err := newRootCmd().Find([]string{"crawl"})
	if err != nil {
		t.Fatal(err)
	}
	if err := applyConfig(c, cfg); err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{"max-frontier": "1000000", "max-body": "10485760", "learn-prior": "0.25"} {
		if got := c.Flags().Lookup(flag).Value.String(); got != want {
			t.Errorf("--%s = %q, want %q", flag, got, want)
		}
	}
	os.WriteFile(cfg, []byte(`{"crawl": {"workers": 2.5}}`), 0o644)
	c, _, _ = newRootCmd().Find([]string{"crawl"})
	if err := applyConfig(c, cfg); err == nil || !strings.Contains(err.Error(), "config file "+cfg) {
		t.Errorf("workers 2.5 from a config file: error %v, want one naming the file", err)
	}
	t.Setenv("SCENT_WORKERS", "many")
	c, _, _ = newRootCmd().Find([]string{"crawl"})
	if err := applyConfig(c, ""); err == nil || !strings.Contains(err.Error(), "environment variable SCENT_WORKERS") {
		t.Errorf("workers from the environment: error %v, want one naming the variable", err)
	}
}

// TestConfig_brokenFileLeavesHelp: help and shell completion read no
// setting, so a broken ./scent.yaml does not stop them; a command that
// reads settings is refused with the file's error.
func TestConfig_brokenFileLeavesHelp(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("scent.yaml", []byte("proxy: [broken\n"), 0o644)
	for _, args := range [][]string{{"help"}, {"help", "crawl"}, {"completion", "bash"}} {
		if out, err := runScent(t, args...); err != nil || out == "" {
			t.Errorf("scent %s with a broken scent.yaml: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if _, err := runScent(t, "crawl", "--seeds", "x.txt"); err == nil || !strings.Contains(err.Error(), "scent.yaml") {
		t.Errorf("crawl with a broken scent.yaml: error %v, want the file's", err)
	}
}

// TestApplyConfig_lists: a list in a config file gives a flag that is
// repeated (--exclude-urls, experiment's --seed) one value per element,
// commas and all, and a comma-separated flag (--domains) its elements.
func TestApplyConfig_lists(t *testing.T) {
	for _, v := range []string{"SCENT_DOMAINS", "SCENT_EXCLUDE_URLS", "SCENT_SEED"} {
		t.Setenv(v, "")
	}
	cfg := filepath.Join(t.TempDir(), "scent.yaml")
	os.WriteFile(cfg, []byte("domains: [example.org, edu]\nexclude-urls:\n  - /calendar/\n  - '/20[0-9]{2,4}/'\nexperiment:\n  seed: [http://a.test/, http://b.test/]\n"), 0o644)
	for _, tc := range []struct {
		cmd, flag string
		want      []string
	}{
		{"crawl", "domains", []string{"example.org", "edu"}},
		{"crawl", "exclude-urls", []string{"/calendar/", "/20[0-9]{2,4}/"}},
		{"experiment", "seed", []string{"http://a.test/", "http://b.test/"}},
	} {
		c, _, err := newRootCmd().Find([]string{tc.cmd})
		if err != nil {
			t.Fatal(err)
		}
		if err := applyConfig(c, cfg); err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		got := c.Flags().Lookup(tc.flag).Value.(interface{ GetSlice() []string }).GetSlice()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s --%s = %q, want %q", tc.cmd, tc.flag, got, tc.want)
		}
	}
}

// FuzzApplyConfig reads arbitrary config files, YAML, TOML and JSON, for
// scent crawl: applyConfig never panics, and what it refuses names the
// file or the setting it could not take.
func FuzzApplyConfig(f *testing.F) {
	f.Add(uint8(0), "max-pages: 5\ncrawl:\n  workers: 3\n")
	f.Add(uint8(0), "crawl:\n  seeds: [a, b]\nmax-pages: {x: 1}\n")
	f.Add(uint8(1), "max-pages = 5\n[crawl]\nworkers = 3\n")
	f.Add(uint8(2), `{"crawl": {"max-frontier": 1000000, "learn-prior": 0.25}, "delay": "1s"}`)
	f.Add(uint8(2), `{"crawl": null, "1": [1, {"a": 2}]}`)
	for _, v := range []string{"SCENT_MAX_PAGES", "SCENT_WORKERS", "SCENT_DELAY", "SCENT_DB", "SCENT_SEEDS"} {
		os.Unsetenv(v) // the file, not the environment, sets them
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, format uint8, content string) {
		cfg := filepath.Join(dir, "scent."+[]string{"yaml", "toml", "json"}[format%3])
		if err := os.WriteFile(cfg, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		c, _, err := newRootCmd().Find([]string{"crawl"})
		if err != nil {
			t.Fatal(err)
		}
		if err := applyConfig(c, cfg); err != nil && !strings.Contains(err.Error(), "config file "+cfg) {
			t.Fatalf("%q: error %v does not name the file", content, err)
		}
	})
}

// TestNameSources: a value refused by a command's checks is said to come
// from the config file or the environment variable that set it, not only
// from a flag the user never typed.
func TestNameSources(t *testing.T) {
	t.Setenv("SCENT_LIMIT", "")
	cfg := filepath.Join(t.TempDir(), "scent.yaml")
	os.WriteFile(cfg, []byte("limit: 0\n"), 0o644)
	_, err := runScent(t, "search", "--config", cfg, "--db", "none.db", "x")
	if want := "--limit must be positive, not 0 (set by config file " + cfg + ")"; err == nil || err.Error() != want {
		t.Errorf("limit from a config file: error %v, want %q", err, want)
	}
	t.Setenv("SCENT_LIMIT", "-1")
	_, err = runScent(t, "search", "--db", "none.db", "x")
	if want := "--limit must be positive, not -1 (set by environment variable SCENT_LIMIT)"; err == nil || err.Error() != want {
		t.Errorf("limit from the environment: error %v, want %q", err, want)
	}
	t.Setenv("SCENT_DOMAINS", "http://a.test/")
	_, err = runScent(t, "crawl", "--seeds", "none.txt")
	if want := `--domains: "http://a.test/" is no host or domain name (write example.org, not a URL) (set by environment variable SCENT_DOMAINS)`; err == nil || err.Error() != want {
		t.Errorf("domains from the environment: error %v, want %q", err, want)
	}
	_, err = runScent(t, "search", "--config", cfg, "--limit", "-2", "--db", "none.db", "x")
	if want := "--limit must be positive, not -2"; err == nil || err.Error() != want {
		t.Errorf("limit from the flag: error %v, want %q", err, want)
	}
}

// TestUnknownEnv: a SCENT_ variable that no command reads is noted, with
// the nearest one that is; a variable of another command's flag, the
// tests' and the research builds' variables and other names are not.
func TestUnknownEnv(t *testing.T) {
	env := []string{"PATH=/bin", "SCENT_WORKRS=4", "SCENT_MAX_PAGES=3", "SCENT_LABELS=l.tsv", "SCENT_TRY_TEMP=2",
		"SCENT_TEST_OUTAGE=30s", "SCENT_HELP=1", "SCENT_QQQ=1", "SCENTX=1"}
	got := unknownEnv(newRootCmd(), env)
	want := []string{
		"environment variable SCENT_HELP sets no flag of any command and is ignored (did you mean SCENT_KEEP?)",
		"environment variable SCENT_QQQ sets no flag of any command and is ignored",
		"environment variable SCENT_WORKRS sets no flag of any command and is ignored (did you mean SCENT_WORKERS?)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A command says so on stderr and goes on.
	t.Setenv("SCENT_MAX_PAGS", "5")
	out, err := runScent(t, "search", "--db", filepath.Join(t.TempDir(), "none.db"), "x")
	if want := "scent: environment variable SCENT_MAX_PAGS sets no flag of any command and is ignored (did you mean SCENT_MAX_PAGES?)"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s (error %v)", want, out, err)
	}
}
