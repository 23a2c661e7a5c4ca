/*
 * mx_sc_regs.h — register map of the SystemC accelerator's target socket
 * (docs/SYSTEMC.md has the bit-field diagrams).  32-bit registers, byte
 * offsets from the socket's base; 64-bit quantities are LO/HI pairs.
 * Plain C so that firmware-style code can include it too.
 */
#ifndef MX_SC_REGS_H
#define MX_SC_REGS_H

#define MX_SC_ID_VALUE      0x4D585346u /* "MXSF" */
#define MX_SC_VERSION_VALUE 0x00010200u /* 1.2: mixed A/B formats, tile re-quantization (FORMAT.RT) */

enum {
    MX_SC_REG_ID        = 0x00, /* RO  MX_SC_ID_VALUE                                   */
    MX_SC_REG_VERSION   = 0x04, /* RO  MX_SC_VERSION_VALUE                              */
    MX_SC_REG_CTRL      = 0x08, /* WO  bit0 START, bit1 CLEAR (done/error/irq)          */
    MX_SC_REG_STATUS    = 0x0C, /* RO  bit0 BUSY, bit1 DONE, bit2 ERROR, [15:8] errcode  */
    MX_SC_REG_M         = 0x10, /* RW  rows of A and of the output (>= 1)                */
    MX_SC_REG_N         = 0x14, /* RW  columns of B and of the output (>= 1)             */
    MX_SC_REG_K         = 0x18, /* RW  reduction length (>= 1)                           */
    MX_SC_REG_FORMAT    = 0x1C, /* RW  [3:0] A fmt, [7:4] B fmt, [11:8] out fmt (RQ),    */
                                /*     [13:12] phase (mx_phase), [14] UNSCALED: no block  */
                                /*     scales (unit scales; scale addresses unused),      */
                                /*     [15] RQ: also write re-quantized codes + scales,   */
                                /*     [16] RT: RQ scale per R x C fold tile (else per R  */
                                /*     outputs of a column)                               */
    MX_SC_REG_BLOCK     = 0x20, /* RW  [7:0] block k, [15:8] tile rows, [23:16] tile cols */
    MX_SC_REG_A_CODES   = 0x28, /* RW  LO/HI: A element codes, M x K row-major           */
    MX_SC_REG_A_SCALES  = 0x30, /* RW  LO/HI: A E8M0 scales                               */
    MX_SC_REG_B_CODES   = 0x38, /* RW  LO/HI: B element codes, K x N row-major           */
    MX_SC_REG_B_SCALES  = 0x40, /* RW  LO/HI: B E8M0 scales                               */
    MX_SC_REG_OUT       = 0x48, /* RW  LO/HI: output, M x N FP32 bits row-major          */
    MX_SC_REG_CYCLES    = 0x50, /* RO  LO/HI: cycles of the last GEMM                     */
    MX_SC_REG_TOTAL     = 0x58, /* RO  LO/HI: cycles of all GEMMs since reset            */
    MX_SC_REG_GEMMS     = 0x60, /* RO  GEMMs completed since reset                        */
    MX_SC_REG_MACS      = 0x68, /* RO  LO/HI: MACs of the last GEMM                       */
    MX_SC_REG_STALL     = 0x70, /* RO  LO/HI: stall cycles (all causes) of the last GEMM  */
    MX_SC_REG_OUT_CODES = 0x80, /* RW  LO/HI: re-quantized output codes, M x N bytes (RQ) */
    MX_SC_REG_OUT_SCALES= 0x88, /* RW  LO/HI: their E8M0 scales, ceil(M/R) x N, or with   */
                                /*     RT ceil(M/R) x ceil(N/C) (RQ)                      */
    MX_SC_REG_SPAN      = 0x90  /* size of the register window                           */
};

#define MX_SC_CTRL_START 0x1u
#define MX_SC_CTRL_CLEAR 0x2u
#define MX_SC_STATUS_BUSY  0x1u
#define MX_SC_STATUS_DONE  0x2u
#define MX_SC_STATUS_ERROR 0x4u
#define MX_SC_FORMAT_RQ    (1u << 15)
#define MX_SC_FORMAT_RT    (1u << 16)

/* STATUS[15:8] after an ERROR. */
enum {
    MX_SC_ERR_NONE = 0,
    MX_SC_ERR_SHAPE = 1,   /* M, N or K is 0, or the block shape is impossible      */
    MX_SC_ERR_FORMAT = 2,  /* unknown format code, or A and B formats differ        */
    MX_SC_ERR_MEMORY = 3,  /* a memory transaction returned an error response       */
    MX_SC_ERR_BACKEND = 4  /* the back-end refused the GEMM (message on stderr)      */
};

#endif
