#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <omp.h>
#include <immintrin.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static uint64_t readbuf(const uint64_t*x,size_t n){uint64_t s=0;
#pragma omp parallel for reduction(+:s) num_threads(2)
for(size_t i=0;i<n;i+=8) s+=x[i]^x[i+1]^x[i+2]^x[i+3]^x[i+4]^x[i+5]^x[i+6]^x[i+7];
return s;}
static void fill(uint64_t*f,size_t n,uint64_t v){
#pragma omp parallel for num_threads(2)
for(size_t i=0;i<n;i++) f[i]=v+i;}
__attribute__((target("clflushopt"))) static void evict(const char*p,size_t n){
#pragma omp parallel for num_threads(2) schedule(static)
for(size_t i=0;i<n;i+=64) _mm_clflushopt((void*)(p+i));
_mm_sfence();}
int main(int argc,char**argv){
 size_t xs=(size_t)atol(argv[1])<<20; int dirty=argc>2;
 uint64_t*x=mmap(0,xs,3,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(x,xs,MADV_HUGEPAGE);
 fill(x,xs/8,1); uint64_t sink=0; double bw=1e9,bt=1e9,bn=1e9;
 for(int s=0;s<7;s++){ if(dirty) fill(x,xs/8,s); else readbuf(x,xs/8);
   double t0=now(); evict((char*)x,xs); double te=now()-t0; if(te<bt)bt=te;
   t0=now(); sink+=readbuf(x,xs/8); double t=now()-t0; if(t<bw)bw=t;
   t0=now(); sink+=readbuf(x,xs/8); t=now()-t0; if(t<bn)bn=t; }
 printf("X %5zu MiB %s: evict %.1f us (%.2f ns/line), read after evict %.1f us %.1f GB/s, warm %.1f GB/s\n",xs>>20,dirty?"dirty":"clean",bt*1e6,bt*1e9/(xs/64),bw*1e6,xs/bw/1e9,xs/bn/1e9);
 fprintf(stderr,"%lu\n",(unsigned long)sink);}
