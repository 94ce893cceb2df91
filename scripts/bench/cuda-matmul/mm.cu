// A CUDA copy of the prefill matmul (shaders/wgsl/ops/matmul.wgsl: 128×128
// tiles, 256 threads, 8×8 outputs a thread, 4 k a staging slot, the next
// step's x and W prefetched into registers) on f16 weights, to learn on the
// lent GPU what the algorithm itself reaches outside naga and Vulkan, and
// which changes pay, with nvcc's register report, cuobjdump's SASS and ncu's
// stall counters, none of which the Vulkan path offers. A diagnostic, not
// part of the engine: scripts/bench/cuda-matmul/run.sh builds its variants
// on the device machine and prints GFLOP/s at 512×2048×8192 with the
// largest error against a float64 product of 64 sampled outputs.
//
// Variants (compile-time):
//   TKV=8|16  the K step;
//   VECX      x read as one 16-byte load a slot (engine: Key.XVec), else
//             four 4-byte loads each with its own bounds test, as before;
//   VECW      the f16 weights' two words as one 8-byte load;
//   DBUF      two tile buffers, one barrier a step (engine: Key.DB);
//   CLAMPS    every workgroup-memory index clamped with min(), as WebGPU
//             implementations do to every dynamic index;
//   CLAMPG    the same for the global x and W reads;
//   MINB=2    __launch_bounds__(256, 2): at most 128 registers.
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#ifndef MINB
#define MINB 1
#endif
#ifdef CLAMPS
#define CL(i,n) min((unsigned)(i),(unsigned)((n)-1))
#else
#define CL(i,n) (i)
#endif
#ifdef CLAMPG
#define GL(i,n) min((size_t)(i),(size_t)(n)-1)
#else
#define GL(i,n) (i)
#endif
constexpr int TM=128, TN=128, TK=TKV, WG=256, RM=TM/16, RN=TN/16;
constexpr int XL=(TM*TK/4+WG-1)/WG, WL=(TN*TK/4+WG-1)/WG;

__device__ __forceinline__ float4 ldx(const float* x,int g,int m0,int k0,int M,int K){
  int row=g/(TK/4), kk=(g%(TK/4))*4; int m=m0+row, k=k0+kk;
  float4 v=make_float4(0,0,0,0);
  if(g<TM*TK/4 && m<M){ const float* p=x+(size_t)m*K+k;
#ifdef VECX
    v=((const float4*)x)[GL(((size_t)m*K+k)/4,(size_t)M*K/4)];
#else
    if(k<K)v.x=p[0]; if(k+1<K)v.y=p[1]; if(k+2<K)v.z=p[2]; if(k+3<K)v.w=p[3];
#endif
  }
  return v;
}
__device__ __forceinline__ float4 ldw(const unsigned* w,int g,int n0,int k0,int N,int K){
  int row=g/(TK/4), kk=(g%(TK/4))*4; int n=n0+row, k=k0+kk;
  float4 v=make_float4(0,0,0,0);
  if(g<TN*TK/4 && n<N && k+4<=K){ size_t e=((size_t)n*K+k)/2;
#ifdef VECW
    uint2 ab=((const uint2*)w)[GL(e/2,(size_t)N*K/4)]; unsigned a=ab.x, b=ab.y;
#else
    unsigned a=w[e], b=w[e+1];
#endif
    __half2 h0=*(__half2*)&a, h1=*(__half2*)&b;
    float2 f0=__half22float2(h0), f1=__half22float2(h1);
    v=make_float4(f0.x,f0.y,f1.x,f1.y);
  }
  return v;
}
__global__ void __launch_bounds__(256,MINB) mm(const unsigned* w,const float* x,float* y,int M,int N,int K){
#ifdef DBUF
  __shared__ float4 xsb[2][TM*TK/4], wsb[2][TN*TK/4]; int cur=0;
#define xs xsb[cur]
#define ws wsb[cur]
#else
  __shared__ float4 xs[TM*TK/4], ws[TN*TK/4];
#endif
  int lid=threadIdx.x, tx=lid%16, ty=lid/16; int m0=blockIdx.y*TM, n0=blockIdx.x*TN;
  float4 acc[RM*RN/4];
#pragma unroll
  for(int i=0;i<RM*RN/4;i++)acc[i]=make_float4(0,0,0,0);
  float4 xr[XL], wr[WL];
#pragma unroll
  for(int i=0;i<XL;i++)xr[i]=ldx(x,lid+i*WG,m0,0,M,K);
#pragma unroll
  for(int i=0;i<WL;i++)wr[i]=ldw(w,lid+i*WG,n0,0,N,K);
#ifdef DBUF
#pragma unroll
    for(int i=0;i<XL;i++){int g=lid+i*WG; if(g<TM*TK/4){int r=g/(TK/4),kk=(g%(TK/4))*4; float* f=(float*)xs;
      f[CL(((kk+0)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].x; f[CL(((kk+1)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].y; f[CL(((kk+2)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].z; f[CL(((kk+3)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].w;}}
#pragma unroll
    for(int i=0;i<WL;i++){int g=lid+i*WG; if(g<TN*TK/4){int r=g/(TK/4),kk=(g%(TK/4))*4; float* f=(float*)ws;
      f[CL(((kk+0)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].x; f[CL(((kk+1)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].y; f[CL(((kk+2)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].z; f[CL(((kk+3)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].w;}}
  __syncthreads();
#endif
  for(int k0=0;k0<K;k0+=TK){
#ifndef DBUF
#pragma unroll
    for(int i=0;i<XL;i++){int g=lid+i*WG; if(g<TM*TK/4){int r=g/(TK/4),kk=(g%(TK/4))*4; float* f=(float*)xs;
      f[CL(((kk+0)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].x; f[CL(((kk+1)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].y; f[CL(((kk+2)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].z; f[CL(((kk+3)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].w;}}
#pragma unroll
    for(int i=0;i<WL;i++){int g=lid+i*WG; if(g<TN*TK/4){int r=g/(TK/4),kk=(g%(TK/4))*4; float* f=(float*)ws;
      f[CL(((kk+0)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].x; f[CL(((kk+1)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].y; f[CL(((kk+2)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].z; f[CL(((kk+3)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].w;}}
    __syncthreads();
#endif
    if(k0+TK<K){
#pragma unroll
      for(int i=0;i<XL;i++)xr[i]=ldx(x,lid+i*WG,m0,k0+TK,M,K);
#pragma unroll
      for(int i=0;i<WL;i++)wr[i]=ldw(w,lid+i*WG,n0,k0+TK,N,K);
    }
#pragma unroll
    for(int kk=0;kk<TK;kk++){
      float4 wv[RN/4];
#pragma unroll
      for(int c=0;c<RN/4;c++)wv[c]=ws[CL(kk*(TN/4)+c*16+tx,TN*TK/4)];
#pragma unroll
      for(int a=0;a<RM/4;a++){float4 xv=xs[CL(kk*(TM/4)+a*16+ty,TM*TK/4)];
#pragma unroll
        for(int c=0;c<RN/4;c++){int b=(a*4)*(RN/4)+c;
#define F(A,s,W) A.x=fmaf(s,W.x,A.x);A.y=fmaf(s,W.y,A.y);A.z=fmaf(s,W.z,A.z);A.w=fmaf(s,W.w,A.w);
          F(acc[b],xv.x,wv[c]) F(acc[b+RN/4],xv.y,wv[c]) F(acc[b+2*(RN/4)],xv.z,wv[c]) F(acc[b+3*(RN/4)],xv.w,wv[c])
        }}
    }
#ifdef DBUF
    if(k0+TK<K){ cur^=1;
#pragma unroll
    for(int i=0;i<XL;i++){int g=lid+i*WG; if(g<TM*TK/4){int r=g/(TK/4),kk=(g%(TK/4))*4; float* f=(float*)xs;
      f[CL(((kk+0)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].x; f[CL(((kk+1)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].y; f[CL(((kk+2)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].z; f[CL(((kk+3)*(TM/4)+r/4)*4+r%4,TM*TK)]=xr[i].w;}}
#pragma unroll
    for(int i=0;i<WL;i++){int g=lid+i*WG; if(g<TN*TK/4){int r=g/(TK/4),kk=(g%(TK/4))*4; float* f=(float*)ws;
      f[CL(((kk+0)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].x; f[CL(((kk+1)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].y; f[CL(((kk+2)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].z; f[CL(((kk+3)*(TN/4)+r/4)*4+r%4,TN*TK)]=wr[i].w;}}
    }
#endif
    __syncthreads();
  }
#pragma unroll
  for(int a=0;a<RM/4;a++)
#pragma unroll
  for(int i=0;i<4;i++){int m=m0+a*64+ty*4+i; if(m>=M)continue;
#pragma unroll
    for(int c=0;c<RN/4;c++){float4 v=acc[(a*4+i)*(RN/4)+c]; int n=n0+c*64+tx*4;
      if(n+3<N)*(float4*)&y[(size_t)m*N+n]=v;}}
}
int main(int argc,char**argv){
  int M=512,K=2048,N=8192, reps=8; int copies=4;
  size_t wn=(size_t)N*K/2; unsigned *w; float *x,*y;
  cudaMalloc(&w,wn*4*copies); cudaMalloc(&x,(size_t)M*K*4); cudaMalloc(&y,(size_t)M*N*4);
  // random-ish halfs in [-1,1]
  unsigned* hw=(unsigned*)malloc(wn*4); for(size_t i=0;i<wn;i++){unsigned a=0x3000+(rand()%0x0c00), b=0x3000+(rand()%0x0c00); if(rand()&1)a|=0x8000; hw[i]=a|(b<<16);} 
  for(int c=0;c<copies;c++)cudaMemcpy(w+c*wn,hw,wn*4,cudaMemcpyHostToDevice);
  float* hx=(float*)malloc((size_t)M*K*4); for(size_t i=0;i<(size_t)M*K;i++)hx[i]=(rand()/(float)RAND_MAX)-0.5f; cudaMemcpy(x,hx,(size_t)M*K*4,cudaMemcpyHostToDevice);
  dim3 g(N/TN,M/TM);
  for(int i=0;i<3;i++)mm<<<g,256>>>(w,x,y,M,N,K);
  cudaEvent_t e0,e1; cudaEventCreate(&e0); cudaEventCreate(&e1); cudaEventRecord(e0);
  for(int i=0;i<reps*copies;i++)mm<<<g,256>>>(w+(i%copies)*wn,x,y,M,N,K);
  cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms,e0,e1); ms/=reps*copies;
  // check a few outputs against float64
  float* hy=(float*)malloc((size_t)M*N*4); cudaMemcpy(hy,y,(size_t)M*N*4,cudaMemcpyDeviceToHost);
  double maxe=0; for(int t=0;t<64;t++){int m=rand()%M,n=rand()%N; double s=0; for(int k=0;k<K;k++){unsigned u=hw[((size_t)n*K+k)/2]; unsigned short h=(k&1)?(u>>16):(u&0xffff); __half hh=*(__half*)&h; s+=(double)hx[(size_t)m*K+k]*(double)__half2float(hh);} double e=fabs(s-hy[(size_t)m*N+n]); if(e>maxe)maxe=e;}
  printf("%s %dx%dx%d: %.3f ms, %.0f GFLOP/s, max err %.2e\n",argv[0],M,K,N,ms,2.0*M*N*K/ms/1e6,maxe);
}
