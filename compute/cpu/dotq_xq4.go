package cpu

import "encoding/binary"

// dotQ4KXQ4 is dotQ4KXQ for one weight row and four token rows (prefill):
// the row's nibbles are unpacked, and their sums taken, once for the four.
// xp, xd and s16 hold the four rows' packed activations, scales and sums
// one after another (k/4, k/32 and k/16 each).
func dotQ4KXQ4(w []byte, xp []uint64, xd, s16 []float32) [4]float32 {
	nb := len(xd) / 32
	xw, xs, ss := nb*64, nb*8, nb*16
	var sum [4]float32
	for bi := 0; bi < nb; bi++ {
		b := (*[144]byte)(w[bi*144:])
		sa := binary.LittleEndian.Uint32(b[4:])
		sb := binary.LittleEndian.Uint32(b[8:])
		sc := binary.LittleEndian.Uint32(b[12:])
		scs := uint64(sa&0x3f3f3f3f) | uint64(sc&0x0f0f0f0f|(sa>>6&0x03030303)<<4)<<32
		mins := uint64(sb&0x3f3f3f3f) | uint64(sc>>4&0x0f0f0f0f|(sb>>6&0x03030303)<<4)<<32
		d, dmin := f16(b[0:]), f16(b[2:])
		for j := 0; j < 4; j++ {
			q := (*[32]byte)(b[16+32*j:])
			o0 := bi*64 + 16*j
			xl0, xl1 := (*[8]uint64)(xp[o0:]), (*[8]uint64)(xp[xw+o0:])
			xl2, xl3 := (*[8]uint64)(xp[2*xw+o0:]), (*[8]uint64)(xp[3*xw+o0:])
			var v, e, o, ql, lo0, lo1, lo2, lo3 uint64
			v = binary.LittleEndian.Uint64(q[0:])
			e, o = v&nib16, v>>8&nib16
			ql += e + o
			lo0 += e*xl0[0]>>48 + o*xl0[1]>>48
			lo1 += e*xl1[0]>>48 + o*xl1[1]>>48
			lo2 += e*xl2[0]>>48 + o*xl2[1]>>48
			lo3 += e*xl3[0]>>48 + o*xl3[1]>>48
			v = binary.LittleEndian.Uint64(q[8:])
			e, o = v&nib16, v>>8&nib16
			ql += e + o
			lo0 += e*xl0[2]>>48 + o*xl0[3]>>48
			lo1 += e*xl1[2]>>48 + o*xl1[3]>>48
			lo2 += e*xl2[2]>>48 + o*xl2[3]>>48
			lo3 += e*xl3[2]>>48 + o*xl3[3]>>48
			v = binary.LittleEndian.Uint64(q[16:])
			e, o = v&nib16, v>>8&nib16
			ql += e + o
			lo0 += e*xl0[4]>>48 + o*xl0[5]>>48
			lo1 += e*xl1[4]>>48 + o*xl1[5]>>48
			lo2 += e*xl2[4]>>48 + o*xl2[5]>>48
			lo3 += e*xl3[4]>>48 + o*xl3[5]>>48
			v = binary.LittleEndian.Uint64(q[24:])
			e, o = v&nib16, v>>8&nib16
			ql += e + o
			lo0 += e*xl0[6]>>48 + o*xl0[7]>>48
			lo1 += e*xl1[6]>>48 + o*xl1[7]>>48
			lo2 += e*xl2[6]>>48 + o*xl2[7]>>48
			lo3 += e*xl3[6]>>48 + o*xl3[7]>>48
			xh0, xh1 := (*[8]uint64)(xp[o0+8:]), (*[8]uint64)(xp[xw+o0+8:])
			xh2, xh3 := (*[8]uint64)(xp[2*xw+o0+8:]), (*[8]uint64)(xp[3*xw+o0+8:])
			var qh, hi0, hi1, hi2, hi3 uint64
			v = binary.LittleEndian.Uint64(q[0:])
			e, o = v>>4&nib16, v>>12&nib16
			qh += e + o
			hi0 += e*xh0[0]>>48 + o*xh0[1]>>48
			hi1 += e*xh1[0]>>48 + o*xh1[1]>>48
			hi2 += e*xh2[0]>>48 + o*xh2[1]>>48
			hi3 += e*xh3[0]>>48 + o*xh3[1]>>48
			v = binary.LittleEndian.Uint64(q[8:])
			e, o = v>>4&nib16, v>>12&nib16
			qh += e + o
			hi0 += e*xh0[2]>>48 + o*xh0[3]>>48
			hi1 += e*xh1[2]>>48 + o*xh1[3]>>48
			hi2 += e*xh2[2]>>48 + o*xh2[3]>>48
			hi3 += e*xh3[2]>>48 + o*xh3[3]>>48
			v = binary.LittleEndian.Uint64(q[16:])
			e, o = v>>4&nib16, v>>12&nib16
			qh += e + o
			hi0 += e*xh0[4]>>48 + o*xh0[5]>>48
			hi1 += e*xh1[4]>>48 + o*xh1[5]>>48
			hi2 += e*xh2[4]>>48 + o*xh2[5]>>48
			hi3 += e*xh3[4]>>48 + o*xh3[5]>>48
			v = binary.LittleEndian.Uint64(q[24:])
			e, o = v>>4&nib16, v>>12&nib16
			qh += e + o
			hi0 += e*xh0[6]>>48 + o*xh0[7]>>48
			hi1 += e*xh1[6]>>48 + o*xh1[7]>>48
			hi2 += e*xh2[6]>>48 + o*xh2[7]>>48
			hi3 += e*xh3[6]>>48 + o*xh3[7]>>48
			const lanes = 0x0001000100010001
			ql, qh = 512*(ql*lanes>>48), 512*(qh*lanes>>48)
			sh := uint(16 * j)
			sc1, sc2 := d*float32(scs>>sh&0xff), d*float32(scs>>(sh+8)&0xff)
			m1, m2 := dmin*float32(mins>>sh&0xff), dmin*float32(mins>>(sh+8)&0xff)
			g, x := bi*16+4*j, bi*8+2*j
			sum[0] += sc1*xd[x]*float32(int64(lo0)-int64(ql)) + sc2*xd[x+1]*float32(int64(hi0)-int64(qh)) -
				m1*(s16[g]+s16[g+1]) - m2*(s16[g+2]+s16[g+3])
			sum[1] += sc1*xd[xs+x]*float32(int64(lo1)-int64(ql)) + sc2*xd[xs+x+1]*float32(int64(hi1)-int64(qh)) -
				m1*(s16[ss+g]+s16[ss+g+1]) - m2*(s16[ss+g+2]+s16[ss+g+3])
			sum[2] += sc1*xd[2*xs+x]*float32(int64(lo2)-int64(ql)) + sc2*xd[2*xs+x+1]*float32(int64(hi2)-int64(qh)) -
				m1*(s16[2*ss+g]+s16[2*ss+g+1]) - m2*(s16[2*ss+g+2]+s16[2*ss+g+3])
			sum[3] += sc1*xd[3*xs+x]*float32(int64(lo3)-int64(ql)) + sc2*xd[3*xs+x+1]*float32(int64(hi3)-int64(qh)) -
				m1*(s16[3*ss+g]+s16[3*ss+g+1]) - m2*(s16[3*ss+g+2]+s16[3*ss+g+3])
		}
	}
	return sum
}
