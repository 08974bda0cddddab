package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Settings of `roost serve` come from, in this precedence: the command
// line, ROOST_* environment variables (ROOST_ and the flag's name in upper
// case with _ for -, e.g. ROOST_RATE_LIMIT), and a YAML config file
// (--config FILE or ROOST_CONFIG) whose keys are the flags' names. A
// value from any of them is checked as the flag checks it, and an error
// names the setting and where it came from.

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return "ROOST_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// listFlag is a flag that may be given several times; from the
// environment its values are separated by commas.
type listFlag interface{ isList() }

// settingSources applies the environment and the config file to the flags
// of fs the command line did not set, and returns where each flag's value
// came from ("flag", "env ROOST_X", "config FILE", or "default").
// noFile lists flags that the config file and environment may not set.
func settingSources(fs *flag.FlagSet, lookup func(string) (string, bool), configFile string, noFile ...string) (map[string]string, error) {
	src := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { src[f.Name] = "default" })
	fs.Visit(func(f *flag.Flag) { src[f.Name] = "flag" })
	skip := map[string]bool{}
	for _, n := range noFile {
		skip[n] = true
	}
	var file map[string]any
	if configFile != "" {
		var err error
		if file, err = readConfig(configFile); err != nil {
			return nil, err
		}
		var unknown []string
		for k := range file {
			if fs.Lookup(k) == nil || skip[k] {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return nil, usageError("config file %s: unknown setting %q", configFile, unknown[0])
		}
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || src[f.Name] != "default" || skip[f.Name] {
			return
		}
		_, isList := f.Value.(listFlag)
		if v, ok := lookup(envName(f.Name)); ok {
			where := "environment variable " + envName(f.Name)
			// A list flag's Set takes the commas of the whole value.
			if err = setAll(f, []string{v}, where); err == nil {
				src[f.Name] = "env " + envName(f.Name)
			}
			return
		}
		if v, ok := file[f.Name]; ok {
			where := "config file " + configFile
			var values []string
			switch x := v.(type) {
			case []any:
				if !isList {
					err = usageError("invalid value for %s in %s: a list, want one value", f.Name, where)
					return
				}
				for _, e := range x {
					values = append(values, fmt.Sprint(e))
				}
			case map[string]any, nil:
				err = usageError("invalid value for %s in %s: want a plain value", f.Name, where)
				return
			default:
				values = []string{fmt.Sprint(x)}
			}
			if err = setAll(f, values, where); err == nil {
				src[f.Name] = "config " + configFile
			}
		}
	})
	return src, err
}

func setAll(f *flag.Flag, values []string, where string) error {
	for _, v := range values {
		if err := f.Value.Set(strings.TrimSpace(v)); err != nil {
			return usageError("invalid value %q for %s from %s: %v", v, f.Name, where, err)
		}
	}
	return nil
}

// readConfig reads a YAML config file: one mapping of setting names to
// values (lists for settings given more than once).
func readConfig(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError("config file: %v", err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, usageError("config file %s: %v", path, err)
	}
	return m, nil
}

// configFileOf is the config file named on the command line (--config) or
// by ROOST_CONFIG.
func configFileOf(fs *flag.FlagSet, lookup func(string) (string, bool)) string {
	if f := fs.Lookup("config"); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	v, _ := lookup("ROOST_CONFIG")
	return v
}

// printConfig writes the effective settings as YAML, each with where it
// came from; secrets (database passwords, the admin token) are masked.
func printConfig(w io.Writer, fs *flag.FlagSet, src map[string]string, extra map[string]string) {
	fmt.Fprintln(w, "# roost serve: effective settings (precedence: flag, environment, config file, default)")
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "config" || f.Name == "print-config" {
			return
		}
		v := f.Value.String()
		if f.Name == "db" || f.Name == "db-read" {
			v = maskURLs(v)
		}
		fmt.Fprintf(w, "%s: %s  # %s\n", f.Name, yamlScalar(v), src[f.Name])
	})
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "# %s: %s\n", k, extra[k])
	}
}

// yamlScalar writes a value as YAML reads it back: plain unless it is
// empty or holds what YAML would read as structure.
func yamlScalar(v string) string {
	if v != "" && !strings.Contains(v, ": ") && !strings.Contains(v, " #") && !strings.ContainsAny(v[:1], "&*!|>'\"%@`{[,#?-") {
		return v
	}
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%q", v)
	}
	return strings.TrimSpace(string(b))
}

// maskURLs hides the passwords of database URLs in a comma-separated list.
func maskURLs(v string) string {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		if u, err := url.Parse(p); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
				parts[i] = u.String()
			}
		}
		if strings.Contains(parts[i], "password=") { // key=value connection strings
			parts[i] = maskKeyValue(parts[i])
		}
	}
	return strings.Join(parts, ",")
}

func maskKeyValue(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		if k, _, ok := strings.Cut(f, "="); ok && k == "password" {
			fields[i] = "password=xxxxx"
		}
	}
	return strings.Join(fields, " ")
}
