package cpu

import "encoding/binary"

// dotQ4KXQ2 is dotQ4KXQ for two rows a and b at once: each activation word
// is loaded once for both.
func dotQ4KXQ2(wa, wb []byte, xp []uint64, xd, s16 []float32) (float32, float32) {
	var suma, sumb float32
	nb := len(xd) / 8
	for bi := 0; bi < nb; bi++ {
		ba := (*[144]byte)(wa[bi*144:])
		bb := (*[144]byte)(wb[bi*144:])
		xb := (*[64]uint64)(xp[bi*64:])
		xdb := (*[8]float32)(xd[bi*8:])
		s := (*[16]float32)(s16[bi*16:])
		var scsA, minsA, scsB, minsB uint64
		{
			sa := binary.LittleEndian.Uint32(ba[4:])
			sb := binary.LittleEndian.Uint32(ba[8:])
			sc := binary.LittleEndian.Uint32(ba[12:])
			scsA = uint64(sa&0x3f3f3f3f) | uint64(sc&0x0f0f0f0f|(sa>>6&0x03030303)<<4)<<32
			minsA = uint64(sb&0x3f3f3f3f) | uint64(sc>>4&0x0f0f0f0f|(sb>>6&0x03030303)<<4)<<32
			sa = binary.LittleEndian.Uint32(bb[4:])
			sb = binary.LittleEndian.Uint32(bb[8:])
			sc = binary.LittleEndian.Uint32(bb[12:])
			scsB = uint64(sa&0x3f3f3f3f) | uint64(sc&0x0f0f0f0f|(sa>>6&0x03030303)<<4)<<32
			minsB = uint64(sb&0x3f3f3f3f) | uint64(sc>>4&0x0f0f0f0f|(sb>>6&0x03030303)<<4)<<32
		}
		var accA, accB, maccA, maccB float32
		for j := 0; j < 4; j++ {
			qa := (*[32]byte)(ba[16+32*j:])
			qb := (*[32]byte)(bb[16+32*j:])
			xl := (*[8]uint64)(xb[16*j:])
			var loA, loB, qlA, qlB uint64
			va := binary.LittleEndian.Uint64(qa[0:])
			vb := binary.LittleEndian.Uint64(qb[0:])
			x0, x1 := xl[0], xl[1]
			ea, oa, eb, ob := va&nib16, va>>8&nib16, vb&nib16, vb>>8&nib16
			loA += ea*x0>>48 + oa*x1>>48
			loB += eb*x0>>48 + ob*x1>>48
			qlA += ea + oa
			qlB += eb + ob
			va = binary.LittleEndian.Uint64(qa[8:])
			vb = binary.LittleEndian.Uint64(qb[8:])
			x0, x1 = xl[2], xl[3]
			ea, oa, eb, ob = va&nib16, va>>8&nib16, vb&nib16, vb>>8&nib16
			loA += ea*x0>>48 + oa*x1>>48
			loB += eb*x0>>48 + ob*x1>>48
			qlA += ea + oa
			qlB += eb + ob
			va = binary.LittleEndian.Uint64(qa[16:])
			vb = binary.LittleEndian.Uint64(qb[16:])
			x0, x1 = xl[4], xl[5]
			ea, oa, eb, ob = va&nib16, va>>8&nib16, vb&nib16, vb>>8&nib16
			loA += ea*x0>>48 + oa*x1>>48
			loB += eb*x0>>48 + ob*x1>>48
			qlA += ea + oa
			qlB += eb + ob
			va = binary.LittleEndian.Uint64(qa[24:])
			vb = binary.LittleEndian.Uint64(qb[24:])
			x0, x1 = xl[6], xl[7]
			ea, oa, eb, ob = va&nib16, va>>8&nib16, vb&nib16, vb>>8&nib16
			loA += ea*x0>>48 + oa*x1>>48
			loB += eb*x0>>48 + ob*x1>>48
			qlA += ea + oa
			qlB += eb + ob

			xh := (*[8]uint64)(xb[16*j+8:])
			var hiA, hiB, qhA, qhB uint64
			va = binary.LittleEndian.Uint64(qa[0:])
			vb = binary.LittleEndian.Uint64(qb[0:])
			x0, x1 = xh[0], xh[1]
			ea, oa, eb, ob = va>>4&nib16, va>>12&nib16, vb>>4&nib16, vb>>12&nib16
			hiA += ea*x0>>48 + oa*x1>>48
			hiB += eb*x0>>48 + ob*x1>>48
			qhA += ea + oa
			qhB += eb + ob
			va = binary.LittleEndian.Uint64(qa[8:])
			vb = binary.LittleEndian.Uint64(qb[8:])
			x0, x1 = xh[2], xh[3]
			ea, oa, eb, ob = va>>4&nib16, va>>12&nib16, vb>>4&nib16, vb>>12&nib16
			hiA += ea*x0>>48 + oa*x1>>48
			hiB += eb*x0>>48 + ob*x1>>48
			qhA += ea + oa
			qhB += eb + ob
			va = binary.LittleEndian.Uint64(qa[16:])
			vb = binary.LittleEndian.Uint64(qb[16:])
			x0, x1 = xh[4], xh[5]
			ea, oa, eb, ob = va>>4&nib16, va>>12&nib16, vb>>4&nib16, vb>>12&nib16
			hiA += ea*x0>>48 + oa*x1>>48
			hiB += eb*x0>>48 + ob*x1>>48
			qhA += ea + oa
			qhB += eb + ob
			va = binary.LittleEndian.Uint64(qa[24:])
			vb = binary.LittleEndian.Uint64(qb[24:])
			x0, x1 = xh[6], xh[7]
			ea, oa, eb, ob = va>>4&nib16, va>>12&nib16, vb>>4&nib16, vb>>12&nib16
			hiA += ea*x0>>48 + oa*x1>>48
			hiB += eb*x0>>48 + ob*x1>>48
			qhA += ea + oa
			qhB += eb + ob

			const lanes = 0x0001000100010001
			sh := uint(16 * j)
			x1f, x2f := xdb[2*j], xdb[2*j+1]
			s1, s2 := s[4*j]+s[4*j+1], s[4*j+2]+s[4*j+3]
			accA += float32(scsA>>sh&0xff)*x1f*float32(int64(loA)-512*int64(qlA*lanes>>48)) +
				float32(scsA>>(sh+8)&0xff)*x2f*float32(int64(hiA)-512*int64(qhA*lanes>>48))
			accB += float32(scsB>>sh&0xff)*x1f*float32(int64(loB)-512*int64(qlB*lanes>>48)) +
				float32(scsB>>(sh+8)&0xff)*x2f*float32(int64(hiB)-512*int64(qhB*lanes>>48))
			maccA += float32(minsA>>sh&0xff)*s1 + float32(minsA>>(sh+8)&0xff)*s2
			maccB += float32(minsB>>sh&0xff)*s1 + float32(minsB>>(sh+8)&0xff)*s2
		}
		suma += f16(ba[0:])*accA - f16(ba[2:])*maccA
		sumb += f16(bb[0:])*accB - f16(bb[2:])*maccB
	}
	return suma, sumb
}
