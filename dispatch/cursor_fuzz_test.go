package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/snodo-go/snodo/mcp"
)

// cursorContext is everything a cursor is bound to: the list (catalog),
// the method, the protocol version and the page size.
type cursorContext struct {
	items   []string
	method  string
	version string
	size    int
}

var (
	cursorCatalogs = func() [][]string {
		ten := make([]string, 10)
		for i := range ten {
			ten[i] = fmt.Sprintf("tool_%02d", i)
		}
		renamed := slices.Clone(ten)
		renamed[5] = "tool_05x"
		reordered := slices.Clone(ten)
		reordered[3], reordered[4] = reordered[4], reordered[3]
		longer := append(slices.Clone(ten), "tool_10", "tool_11", "tool_12")
		return [][]string{ten, renamed, reordered, longer, ten[:9]}
	}()
	cursorMethods  = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"}
	cursorVersions = []string{"2026-07-28", "2025-11-25"}
	cursorSizes    = []int{1, 3, 4}
)

// contextOf picks a context from a fuzzed selector.
func contextOf(sel uint16) cursorContext {
	n := int(sel)
	c := cursorContext{items: cursorCatalogs[n%len(cursorCatalogs)]}
	n /= len(cursorCatalogs)
	c.method = cursorMethods[n%len(cursorMethods)]
	n /= len(cursorMethods)
	c.version = cursorVersions[n%len(cursorVersions)]
	n /= len(cursorVersions)
	c.size = cursorSizes[n%len(cursorSizes)]
	return c
}

func (c cursorContext) same(o cursorContext) bool {
	return slices.Equal(c.items, o.items) && c.method == o.method && c.version == o.version && c.size == o.size
}

// cursorRuntimes holds one Runtime per page size.
type cursorRuntimes map[int]*Runtime

func (rts cursorRuntimes) page(c cursorContext, cursor string) ([]string, string, error) {
	params := []byte(`{}`)
	if cursor != "" {
		b, err := json.Marshal(map[string]string{"cursor": cursor})
		if err != nil {
			return nil, "", err
		}
		params = b
	}
	call := &Call{Info: RequestInfo{Method: c.method, ProtocolVersion: c.version}, Params: params}
	return pageOf(rts[c.size], call, c.items, func(s string) string { return s })
}

// FuzzCursor issues a genuine cursor in one context, optionally tampers
// with it, and presents it in another. Paging never panics; an untampered
// cursor is accepted exactly when the catalog, method, version and page
// size are the same, and then yields the next page; any cursor that is
// accepted yields an in-range page of the list it names; every refusal is
// -32602.
func FuzzCursor(f *testing.F) {
	rts := cursorRuntimes{}
	for _, size := range cursorSizes {
		rt, err := New(mcp.Implementation{Name: "cursor-fuzz", Version: "1"}, WithLimits(Limits{PageSize: size}))
		if err != nil {
			f.Fatal(err)
		}
		rts[size] = rt
	}
	f.Add(uint16(0), uint16(0), uint8(1), []byte(nil), "")
	f.Add(uint16(0), uint16(1), uint8(1), []byte(nil), "")     // another catalog
	f.Add(uint16(0), uint16(5), uint8(1), []byte(nil), "")     // another method
	f.Add(uint16(0), uint16(20), uint8(1), []byte(nil), "")    // another version
	f.Add(uint16(0), uint16(40), uint8(1), []byte(nil), "")    // another page size
	f.Add(uint16(2), uint16(2), uint8(3), []byte{0, 0, 1}, "") // one bit flipped
	f.Add(uint16(0), uint16(0), uint8(0), []byte(nil), "eyJ2IjoxfQ")
	f.Add(uint16(0), uint16(0), uint8(0), []byte(nil), "!!!")
	f.Add(uint16(0), uint16(0), uint8(0), []byte(nil), `eyJ2IjoxLCJtIjoidG9vbHMvbGlzdCIsInB2IjoiMjAyNi0wNy0yOCIsIm4iOjEsIm8iOi0xLCJkIjoiIn0`)
	f.Fuzz(func(t *testing.T, srcSel, dstSel uint16, pages uint8, flip []byte, raw string) {
		src, dst := contextOf(srcSel), contextOf(dstSel)
		// Walk the source list to the cursor of page 1 + pages%5.
		cursor := ""
		genuineOffset := 0
		for i := 0; i <= int(pages%5); i++ {
			page, next, err := rts.page(src, cursor)
			if err != nil {
				t.Fatalf("walking the source list: %v", err)
			}
			genuineOffset += len(page)
			cursor = next
			if next == "" {
				break
			}
		}
		genuine := cursor
		if raw != "" {
			cursor = raw
		} else if len(flip) > 0 && cursor != "" {
			b := []byte(cursor)
			for i, x := range flip {
				b[i%len(b)] ^= x
			}
			cursor = string(b)
		}
		page, next, err := rts.page(dst, cursor)
		if err != nil {
			if !errors.Is(err, errBadCursor) {
				t.Fatalf("refusal %v is not the invalid-cursor error", err)
			}
			if cursor == genuine && cursor != "" && src.same(dst) {
				t.Fatalf("a genuine cursor was refused in its own context %+v", dst)
			}
			return
		}
		if cursor == "" {
			return // the first page
		}
		if cursor == genuine && !src.same(dst) {
			t.Fatalf("a cursor for %s %s size %d over %v was accepted for %s %s size %d over %v",
				src.method, src.version, src.size, src.items, dst.method, dst.version, dst.size, dst.items)
		}
		off := genuineOffset
		if cursor != genuine {
			cur, ok := parseCursor(cursor)
			if !ok || cur.Method != dst.method || cur.Version != dst.version || cur.PageSize != dst.size || cur.Digest != listDigest(dst.items) {
				t.Fatalf("a tampered cursor %q was accepted for another context: %+v", cursor, cur)
			}
			off = cur.Offset
		}
		if off <= 0 || off >= len(dst.items) {
			t.Fatalf("accepted offset %d of a %d-item list", off, len(dst.items))
		}
		want := dst.items[off:min(off+dst.size, len(dst.items))]
		if !slices.Equal(page, want) {
			t.Fatalf("page %v, want %v", page, want)
		}
		if (next == "") != (off+dst.size >= len(dst.items)) {
			t.Fatalf("next cursor %q at offset %d of %d", next, off, len(dst.items))
		}
	})
}
