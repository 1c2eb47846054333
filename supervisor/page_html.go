package supervisor

// The debug page as server-rendered HTML: the bounded view of the tree
// with its counts, the executor's gauges, collapsible nodes and a search
// form, complete without JavaScript; its embedded script makes it live.

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

//go:embed page/page.html page/page.css page/page.js
var pageFiles embed.FS

var (
	pageTemplate = template.Must(template.New("page.html").ParseFS(pageFiles, "page/page.html"))
	pageCSS      = mustRead("page/page.css")
	pageJS       = mustRead("page/page.js")
	// pageCSP allows the page's own style and script (by their hashes),
	// connections and form posts to its own origin, and nothing else.
	pageCSP = "default-src 'none'; style-src '" + cspHash(pageCSS) + "'; script-src '" + cspHash(pageJS) +
		"'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)

func mustRead(name string) string {
	b, err := pageFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

// kv is one labelled value of the page.
type kv struct{ Key, Label, Value string }

// htmlNode is a pageNode as the template walks it.
type htmlNode struct {
	*pageNode
	Name     string
	Branch   bool
	AttrList []kv
	Kids     []*htmlNode
}

// OmittedKinds describes the children left out, by kind.
func (n *htmlNode) OmittedKinds() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(n.pageNode.OmittedKinds)) {
		parts = append(parts, strconv.Itoa(n.pageNode.OmittedKinds[k])+" "+string(k))
	}
	return strings.Join(parts, ", ")
}

type pageData struct {
	View   *pageView
	Root   *htmlNode
	Gauges []kv
	Counts []kv
	CSS    template.CSS
	JS     template.JS
}

// gaugeOrder puts the executor's gauges an operator reads first first;
// any other attribute follows in name order.
var gaugeOrder = []string{"running", "max_concurrency", "queued", "max_queue", "subscriptions", "submitted", "rejected", "timed_out", "cancelled"}

// writePage writes v as the HTML page.
func writePage(w io.Writer, v *pageView) error {
	d := pageData{View: v, CSS: template.CSS(pageCSS), JS: template.JS(pageJS)}
	if v.Root != nil {
		d.Root = toHTMLNode(v.Root)
	}
	keys := slices.DeleteFunc(slices.Clone(gaugeOrder), func(k string) bool { _, ok := v.Executor[k]; return !ok })
	for _, k := range slices.Sorted(maps.Keys(v.Executor)) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		d.Gauges = append(d.Gauges, kv{Key: k, Label: strings.ReplaceAll(k, "_", " "), Value: v.Executor[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(v.Counts)) {
		d.Counts = append(d.Counts, kv{Key: string(k), Value: strconv.Itoa(v.Counts[k])})
	}
	return pageTemplate.Execute(w, d)
}

func toHTMLNode(n *pageNode) *htmlNode {
	h := &htmlNode{pageNode: n, Branch: len(n.Children) > 0 || n.Omitted > 0}
	h.Name = n.ID[strings.LastIndexByte(n.ID, '/')+1:]
	for _, k := range slices.Sorted(maps.Keys(n.Attrs)) {
		h.AttrList = append(h.AttrList, kv{Key: k, Value: n.Attrs[k]})
	}
	for _, c := range n.Children {
		h.Kids = append(h.Kids, toHTMLNode(c))
	}
	return h
}
