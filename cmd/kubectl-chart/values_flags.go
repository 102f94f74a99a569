package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/adapters/repo"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// pluginGetter is the getter plugin serving name's URL scheme, if any; as in
// Helm, a name no getter serves is read as a file.
func (v *valuesFlags) pluginGetter(name string) (*plugin.Getter, bool) {
	scheme, _, ok := strings.Cut(name, "://")
	if !ok || v.plugins == nil {
		return nil, false
	}
	reg, err := v.plugins.load()
	if err != nil {
		return nil, false
	}
	return plugin.NewGetter(reg, plugin.Host(), scheme)
}

// valuesFlags are -f/--values and the --set family.
type valuesFlags struct {
	opts values.Options
	// plugins, when set, serve -f URLs of their getters' schemes (Helm 4).
	plugins *pluginConfig
}

func (v *valuesFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVarP(&v.opts.ValueFiles, "values", "f", nil, "specify values in a YAML file or a URL (can specify multiple)")
	fs.StringArrayVar(&v.opts.Values, "set", nil, "set values on the command line (can specify multiple or separate values with commas: key1=val1,key2=val2)")
	fs.StringArrayVar(&v.opts.StringValues, "set-string", nil, "set STRING values on the command line (can specify multiple or separate values with commas: key1=val1,key2=val2)")
	fs.StringArrayVar(&v.opts.FileValues, "set-file", nil, "set values from respective files specified via the command line (can specify multiple or separate values with commas: key1=path1,key2=path2)")
	fs.StringArrayVar(&v.opts.JSONValues, "set-json", nil, "set JSON values on the command line (can specify multiple or separate values with commas: key1=jsonval1,key2=jsonval2)")
	fs.StringArrayVar(&v.opts.LiteralValues, "set-literal", nil, "set a literal STRING value on the command line")
}

// Merge reads the files named by the flags (- is standard input, http(s)
// URLs are downloaded) and merges all values, by Helm 3's rules. Read errors are
// Helm's: the file's own, which names it.
func (v *valuesFlags) Merge(ctx context.Context, stdin io.Reader) (map[string]any, error) {
	return v.MergeFor(ctx, stdin, dialect.Helm3)
}

// MergeFor is Merge by the dialect's rules (values files of several documents,
// --set-json with a JSON object).
func (v *valuesFlags) MergeFor(ctx context.Context, stdin io.Reader, d dialect.Dialect) (map[string]any, error) {
	opts := v.opts
	opts.Dialect = d
	read := func(name string) ([]byte, error) {
		if strings.TrimSpace(name) == "-" {
			return io.ReadAll(stdin)
		}
		if strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://") {
			g, err := repo.NewGetter(nil, dialect.Default)
			if err != nil {
				return nil, err
			}
			return g.Get(ctx, name, repo.MaxDownloadSize)
		}
		if g, ok := v.pluginGetter(name); ok {
			return g.Get(ctx, name)
		}
		return os.ReadFile(name)
	}
	opts.ReadSetFile = func(name string) ([]byte, error) {
		if strings.TrimSpace(name) == "-" {
			return readSetFile("--set-file -", stdin)
		}
		if strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://") {
			return read(name)
		}
		// A device or a FIFO could be read forever (/dev/zero); only regular files are
		// values. What cannot be stat'ed is opened, for the open error's words.
		fi, err := os.Stat(name)
		if err != nil {
			return read(name)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("--set-file %s: not a regular file", name)
		}
		if fi.Size() > values.MaxSetFileSize {
			return nil, setFileTooLarge(name)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }()
		return readSetFile(name, f)
	}
	return opts.Merge(read)
}

// readSetFile reads a --set-file value up to values.MaxSetFileSize.
func readSetFile(name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, values.MaxSetFileSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > values.MaxSetFileSize {
		return nil, setFileTooLarge(name)
	}
	return data, nil
}

func setFileTooLarge(name string) error {
	return fmt.Errorf("--set-file %s is larger than the maximum size %d", name, values.MaxSetFileSize)
}
