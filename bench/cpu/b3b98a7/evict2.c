#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <omp.h>
#include <immintrin.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define BLK 32768
__attribute__((target("clflushopt"))) static void ev(char*p,size_t n){for(size_t i=0;i<n;i+=64)_mm_clflushopt(p+i);}
int main(int argc,char**argv){
 size_t total=(size_t)atol(argv[1])<<20; size_t nb=total/BLK;
 char*x=mmap(0,total,3,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(x,total,MADV_HUGEPAGE);
 for(size_t i=0;i<total;i++) x[i]=(char)i;
 int*perm=malloc(nb*sizeof(int)); for(size_t i=0;i<nb;i++)perm[i]=i; srand(1); for(size_t i=nb-1;i>0;i--){size_t j=rand()%(i+1);int t=perm[i];perm[i]=perm[j];perm[j]=t;}
 double best[2]={1e9,1e9}; uint64_t sink=0;
 for(int rep=0;rep<12;rep++){ int mode=rep%2;
  #pragma omp parallel num_threads(2)
  { int t=omp_get_thread_num();
    if(mode==0){ size_t h=total/2; ev(x+t*h,h); }               /* whole range, halves */
    else { for(size_t b=0;b<nb;b++){ char*p=x+(size_t)perm[b]*BLK; ev(p+t*BLK/2,BLK/2);} } /* per block in table order */
    _mm_mfence(); }
  double t0=now(); uint64_t s=0;
  #pragma omp parallel for reduction(+:s) num_threads(2) schedule(static)
  for(size_t b=0;b<nb;b++){ const uint64_t*p=(const uint64_t*)(x+(size_t)perm[b]*BLK); for(int i=0;i<BLK/8;i+=8) s+=p[i]^p[i+1]^p[i+2]^p[i+3]^p[i+4]^p[i+5]^p[i+6]^p[i+7]; }
  double t=now()-t0; sink+=s; if(t<best[mode])best[mode]=t; }
 printf("%zu MiB: read after whole-range eviction %.0f us (%.1f GB/s), after per-block eviction %.0f us (%.1f GB/s)\n", total>>20, best[0]*1e6,total/best[0]/1e9,best[1]*1e6,total/best[1]/1e9);
 fprintf(stderr,"%lu\n",(unsigned long)sink);}
