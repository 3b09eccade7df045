package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// applyConfig fills every flag the user did not set from the environment
// (SCENT_MAX_PAGES for --max-pages) or the config file. A top-level key of
// the file whose value is a mapping and whose name is a command's is that
// command's section; any other top-level key is a flag name for every
// command that has the flag. Keys that name no flag are an error that
// names the nearest valid key.
func applyConfig(cmd *cobra.Command, path string) error {
	if path == "" {
		if _, err := os.Stat("scent.yaml"); err == nil {
			path = "scent.yaml"
		}
	}
	settings := map[string]any{}
	if path != "" {
		v := viper.New()
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
		if err := checkConfigValues(v); err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
		settings = v.AllSettings()
		if err := checkConfigKeys(cmd.Root(), settings); err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
	}
	section, _ := settings[cmd.Name()].(map[string]any)
	var errs []error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "config" || f.Name == "help" || f.Name == "cpuprofile" {
			return
		}
		var val any
		from := "config file " + path
		if s, ok := os.LookupEnv(envName(f.Name)); ok && s != "" {
			val, from = s, "environment variable "+envName(f.Name)
		} else if x, ok := section[f.Name]; ok {
			val = x
		} else if x, ok := settings[f.Name]; ok {
			if _, isSection := x.(map[string]any); isSection {
				return
			}
			val = x
		} else {
			return
		}
		s := configValue(val)
		list, isList := val.([]any)
		if isList {
			parts := make([]string, len(list))
			for i, x := range list {
				parts[i] = configValue(x)
			}
			s = strings.Join(parts, ",")
			if f.Value.Type() == "stringArray" {
				// Each element is one value, commas and all (a
				// regular expression's {1,3}): set one by one.
				for _, p := range parts {
					if err := cmd.Flags().Set(f.Name, p); err != nil {
						errs = append(errs, fmt.Errorf("setting %s=%q from %s: %w", f.Name, p, from, err))
						return
					}
				}
				cmd.Flags().SetAnnotation(f.Name, sourceKey, []string{from})
				return
			}
		}
		if err := cmd.Flags().Set(f.Name, s); err != nil {
			errs = append(errs, fmt.Errorf("setting %s=%q from %s: %w", f.Name, s, from, err))
			return
		}
		cmd.Flags().SetAnnotation(f.Name, sourceKey, []string{from})
	})
	return errors.Join(errs...)
}

// sourceKey is the annotation in which applyConfig keeps where it took
// a flag's value from.
const sourceKey = "scent_source"

// settingSource says where the value of the flag name came from: the
// environment variable or the config file that applyConfig took it from,
// else the flag itself (--name).
func settingSource(fs *pflag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil && len(f.Annotations[sourceKey]) > 0 {
		return f.Annotations[sourceKey][0]
	}
	return "--" + name
}

// configValue is a config file's value as a flag reads it. JSON gives
// every number as a float64, which fmt prints in exponent form from a
// million on (1e+06), a form integer flags refuse: a whole number is
// written as one.
func configValue(v any) string {
	if f, ok := v.(float64); ok {
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// envName is the environment variable of a flag: SCENT_ and the name in
// upper case with - and + as _.
func envName(flag string) string {
	return "SCENT_" + strings.ToUpper(strings.NewReplacer("-", "_", "+", "_").Replace(flag))
}

// envElsewhere are the prefixes of SCENT_ variables that set no flag
// but are read by something else: the tests (SCENT_TEST_…, SCENT_BENCH_…,
// SCENT_WARCIO) and the builds of results/learn/tried (SCENT_TRY_…).
var envElsewhere = []string{"SCENT_TRY_", "SCENT_TEST_", "SCENT_BENCH_", "SCENT_WARCIO"}

// unknownEnv returns a note for each variable of env (os.Environ's
// "NAME=value" form) whose name starts with SCENT_ but is the variable of
// no flag of any command of root, with the nearest that is: a misspelt
// name would otherwise leave its setting at the default without a word.
// A variable that names a flag of another command is not noted (one
// environment serves every command).
func unknownEnv(root *cobra.Command, env []string) []string {
	valid := map[string]bool{}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		for f := range flagsOf(c) {
			valid[strings.TrimPrefix(envName(f), "SCENT_")] = true
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
	var notes []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		key, ok := strings.CutPrefix(name, "SCENT_")
		if !ok || valid[key] {
			continue
		}
		elsewhere := false
		for _, p := range envElsewhere {
			elsewhere = elsewhere || strings.HasPrefix(name, p)
		}
		if elsewhere {
			continue
		}
		note := fmt.Sprintf("environment variable %s sets no flag of any command and is ignored", name)
		if near := nearestKey(key, valid); near != "" {
			note += fmt.Sprintf(" (did you mean SCENT_%s?)", near)
		}
		notes = append(notes, note)
	}
	sort.Strings(notes)
	return notes
}

// checkConfigValues reports the keys of a config file that have no value
// (YAML's "key:" or null, JSON's null), which viper leaves out of its
// settings as if they were not there: the flag would keep its default
// without a word. An empty string is a value, which the flag checks.
func checkConfigValues(v *viper.Viper) error {
	keys := v.AllKeys()
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		if v.Get(k) == nil {
			errs = append(errs, fmt.Errorf("key %q has no value (give one or remove the key)", k))
		}
	}
	return errors.Join(errs...)
}

// checkConfigKeys reports the keys of a config file that name neither a
// command's section nor a flag, with the nearest valid key.
func checkConfigKeys(root *cobra.Command, settings map[string]any) error {
	all := map[string]bool{}
	cmds := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		cmds[c.Name()] = c
		for k := range flagsOf(c) {
			all[k] = true
		}
	}
	for k := range flagsOf(root) {
		all[k] = true
	}
	var errs []error
	for _, key := range sortedKeys(settings) {
		sub, isMap := settings[key].(map[string]any)
		c, isCmd := cmds[key]
		switch {
		case isCmd && isMap:
			valid := flagsOf(c)
			for _, k := range sortedKeys(sub) {
				if _, nested := sub[k].(map[string]any); nested && valid[k] {
					errs = append(errs, notAMapping(key+"."+k, k))
				} else if !valid[k] {
					errs = append(errs, unknownKey(key+"."+k, k, valid, "command "+key+" has no flag --"+k))
				}
			}
		case isMap && all[key]:
			errs = append(errs, notAMapping(key, key))
		case isMap:
			errs = append(errs, unknownKey(key, key, mergeKeys(all, cmds), "no command or flag is named "+key))
		case !all[key]:
			errs = append(errs, unknownKey(key, key, mergeKeys(all, cmds), "no flag is named --"+key))
		}
	}
	return errors.Join(errs...)
}

// flagsOf returns the names of c's flags, its own and those it
// inherits, but --help, which no setting gives.
func flagsOf(c *cobra.Command) map[string]bool {
	m := map[string]bool{}
	add := func(f *pflag.Flag) { m[f.Name] = true }
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	delete(m, "help")
	return m
}

// notAMapping is the error of the key full, which names the flag --name
// but holds a mapping, not a value.
func notAMapping(full, name string) error {
	return fmt.Errorf("key %q holds a mapping, not a value for --%s (a mapping is a section, named after a command)", full, name)
}

func unknownKey(full, key string, valid map[string]bool, why string) error {
	if near := nearestKey(key, valid); near != "" {
		return fmt.Errorf("unknown key %q (%s; did you mean %q?)", full, why, near)
	}
	return fmt.Errorf("unknown key %q (%s)", full, why)
}

func mergeKeys(flags map[string]bool, cmds map[string]*cobra.Command) map[string]bool {
	m := make(map[string]bool, len(flags)+len(cmds))
	for k := range flags {
		m[k] = true
	}
	for k := range cmds {
		m[k] = true
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// nearestKey returns the valid key with the smallest edit distance to key
// (ties: the first in sorted order), or "" when none is within half of
// key's length.
func nearestKey(key string, valid map[string]bool) string {
	best, bestD := "", len(key)/2+1
	for _, k := range sortedKeys(valid) {
		if d := levenshtein(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// nameSources makes every command of root (and their subcommands) say
// where a refused setting came from: an error that names a flag first
// ("--workers must be at least 1, not -3") gets the environment variable
// or config file that set it, which the user did not type as --workers.
func nameSources(root *cobra.Command) {
	for _, c := range root.Commands() {
		nameSources(c)
		if run := c.RunE; run != nil {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				return withSource(cmd.Flags(), run(cmd, args))
			}
		}
	}
}

// withSource adds to err, when its message starts with a flag of fs
// ("--NAME …") that the environment or a config file set, where it came
// from.
func withSource(fs *pflag.FlagSet, err error) error {
	if err == nil {
		return nil
	}
	rest, ok := strings.CutPrefix(err.Error(), "--")
	if !ok {
		return err
	}
	name := rest
	if i := strings.IndexAny(rest, " :"); i >= 0 {
		name = rest[:i] // "--workers must …", "--domains: …"
	}
	if f := fs.Lookup(name); f == nil || len(f.Annotations[sourceKey]) == 0 {
		return err
	}
	return fmt.Errorf("%w (set by %s)", err, settingSource(fs, name))
}
