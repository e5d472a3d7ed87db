package report

import (
	"fmt"

	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/internal/numfmt"
)

// FilesRows is the text of the report's "files" section; keepGoing and
// minTokens are the options the files were read with.
func FilesRows(st *fileset.Stats, keepGoing bool, minTokens int) [][2]string {
	rows := [][2]string{
		{"listed", numfmt.Group(int64(st.Listed))},
		{"selected", numfmt.Group(int64(st.Selected))},
	}
	if keepGoing {
		rows = append(rows, [2]string{"unreadable, skipped", numfmt.Group(int64(st.Unreadable))})
	}
	if n := st.NotRegular + st.Dangling + st.Loops; n > 0 {
		rows = append(rows, [2]string{"not files, skipped", fmt.Sprintf("%s (FIFO, device or socket: %s; link to nothing: %s; link loop: %s)",
			numfmt.Group(int64(n)), numfmt.Group(int64(st.NotRegular)), numfmt.Group(int64(st.Dangling)), numfmt.Group(int64(st.Loops)))})
	}
	if minTokens > 0 {
		rows = append(rows, [2]string{fmt.Sprintf("below %d tokens", minTokens), numfmt.Group(int64(st.TooFew))})
	}
	rows = append(rows,
		[2]string{"records", numfmt.Group(int64(st.Records))},
		[2]string{"bytes read", numfmt.Bytes(st.Bytes, 2)},
	)
	if st.Gzip+st.Zstd > 0 {
		rows = append(rows, [2]string{"decompressed", fmt.Sprintf("%s gzip, %s zstd", numfmt.Group(int64(st.Gzip)), numfmt.Group(int64(st.Zstd)))})
	}
	return append(rows,
		[2]string{"listing", fmt.Sprintf("%.3f s", st.ListSeconds)},
		[2]string{"reading", fmt.Sprintf("%.3f s (summed over workers)", st.ReadCPU)},
		[2]string{"tokenizing", fmt.Sprintf("%.3f s (summed over workers)", st.TokenCPU)},
	)
}
