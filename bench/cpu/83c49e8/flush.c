#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <omp.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static uint64_t readbuf(const uint64_t*x,size_t n){uint64_t s=0;
#pragma omp parallel for reduction(+:s) num_threads(2)
for(size_t i=0;i<n;i+=8) s+=x[i]^x[i+1]^x[i+2]^x[i+3]^x[i+4]^x[i+5]^x[i+6]^x[i+7];
return s;}
static void fill(uint64_t*f,size_t n,uint64_t v){
#pragma omp parallel for num_threads(2)
for(size_t i=0;i<n;i++) f[i]=v+i;}
int main(int argc,char**argv){
 size_t xs=(size_t)atol(argv[1])<<20; size_t fmax=(size_t)1<<31;
 uint64_t*x=mmap(0,xs,3,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(x,xs,MADV_HUGEPAGE);
 uint64_t*f=mmap(0,fmax,3,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(f,fmax,MADV_HUGEPAGE);
 fill(x,xs/8,1); fill(f,fmax/8,2);
 size_t fl[]={0,16,40,64,128,256,512,1024,2048}; uint64_t sink=0;
 for(int rep=0;rep<3;rep++) for(int k=0;k<9;k++){ double best=1e9;
  for(int s=0;s<5;s++){ readbuf(x,xs/8); fill(f,(fl[k]<<20)/8,s+rep*7+k); double t0=now(); sink+=readbuf(x,xs/8); double t=now()-t0; if(t<best)best=t;}
  printf("X %zu MiB flush %5zu MiB: %.1f us  %.1f GB/s\n",xs>>20,fl[k],best*1e6,xs/best/1e9);}
 fprintf(stderr,"%lu\n",(unsigned long)sink);}
