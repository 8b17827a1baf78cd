// Package storetest damages real database files for the tests of `db check`, `db recover` and
// the open-time check: it reads SQLite's file format (sqlite.org/fileformat2.html) to find
// which rows a page holds, then overwrites that page, truncates the file, or gives it a WAL
// made for another database. Test support only; nothing in the product imports it.
package storetest

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"sort"

	_ "github.com/mattn/go-sqlite3" // the store's driver
)

// Row is a row of the chunks table: its rowid and its place in a session.
type Row struct {
	Rowid     int64
	SessionID string
	Seq       int64
}

// LeafPages returns the leaf pages of table's b-tree in the file at path (closed, its WAL
// checkpointed), in key order, with the rowids each holds.
func LeafPages(path, table string) ([]Leaf, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	var root int
	err = db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&root)
	db.Close()
	if err != nil {
		return nil, fmt.Errorf("root page of %s: %w", table, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	size := int(binary.BigEndian.Uint16(b[16:18]))
	if size == 1 {
		size = 65536
	}
	var leaves []Leaf
	var walk func(page int) error
	walk = func(page int) error {
		p := b[(page-1)*size : page*size]
		h := 0
		if page == 1 {
			h = 100
		}
		kind, cells := p[h], int(binary.BigEndian.Uint16(p[h+3:h+5]))
		switch kind {
		case 0x0D: // table leaf: cells are (payload size, rowid, payload)
			l := Leaf{Page: page}
			for i := 0; i < cells; i++ {
				off := int(binary.BigEndian.Uint16(p[h+8+2*i:]))
				_, n := varint(p[off:])
				id, _ := varint(p[off+n:])
				l.Rowids = append(l.Rowids, int64(id))
			}
			leaves = append(leaves, l)
		case 0x05: // table interior: cells are (left child, key), then the right-most child
			for i := 0; i < cells; i++ {
				off := int(binary.BigEndian.Uint16(p[h+12+2*i:]))
				if err := walk(int(binary.BigEndian.Uint32(p[off:]))); err != nil {
					return err
				}
			}
			return walk(int(binary.BigEndian.Uint32(p[h+8:])))
		default:
			return fmt.Errorf("page %d: type %#x is not a table b-tree page", page, kind)
		}
		return nil
	}
	return leaves, walk(root)
}

// Leaf is a leaf page of a table and the rowids on it.
type Leaf struct {
	Page   int
	Rowids []int64
}

func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8; i++ {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v<<8 | uint64(b[8]), 9
}

// Rows maps the chunks' rowids to their sessions and seqs, read from the healthy file.
func Rows(path string) (map[int64]Row, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, session_id, seq FROM chunks`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]Row{}
	for rows.Next() {
		var r Row
		if err := rows.Scan(&r.Rowid, &r.SessionID, &r.Seq); err != nil {
			return nil, err
		}
		out[r.Rowid] = r
	}
	return out, rows.Err()
}

// Overwrite writes junk over page (1-based) of the file: what a failing disk or a stray
// write leaves.
func Overwrite(path string, page int) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [18]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return err
	}
	size := int(binary.BigEndian.Uint16(hdr[16:18]))
	junk := make([]byte, size)
	for i := range junk {
		junk[i] = byte(i*7 + page)
	}
	_, err = f.WriteAt(junk, int64(page-1)*int64(size))
	return err
}

// Hash is the SHA-256 of a file's bytes ("" when it does not exist).
func Hash(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// DamageMiddleLeaf overwrites the leaf page of the chunks table in the middle of the file at
// path (closed) and returns the rows it held as "SESSION/SEQ", sorted.
func DamageMiddleLeaf(path string) ([]string, error) {
	leaves, err := LeafPages(path, "chunks")
	if err != nil {
		return nil, err
	}
	if len(leaves) < 3 {
		return nil, fmt.Errorf("only %d leaf pages: the journal is too small", len(leaves))
	}
	rows, err := Rows(path)
	if err != nil {
		return nil, err
	}
	leaf := leaves[len(leaves)/2]
	var lost []string
	for _, id := range leaf.Rowids {
		lost = append(lost, fmt.Sprintf("%s/%d", rows[id].SessionID, rows[id].Seq))
	}
	sort.Strings(lost)
	return lost, Overwrite(path, leaf.Page)
}
