// First touch of fresh anonymous memory against memory the process already had: maps 1 GiB
// (2 MiB aligned; argv[1] = 1 asks for transparent huge pages), writes it twice, unmaps it, three
// times. On a VM whose hypervisor takes freed guest memory back, the first write of the first
// round pays for the host's faults. Build: gcc -O2 first_touch.c -o first_touch; run: ./first_touch 1
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n=(size_t)1<<30; int huge=atoi(argv[1]);
  for(int rep=0;rep<3;rep++){
  double t0=now();
  char*p=mmap(0,n+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  char*a=(char*)(((size_t)p+(2<<20)-1)&~((size_t)(2<<20)-1));
  if(huge) madvise(a,n,MADV_HUGEPAGE);
  double t1=now();
  memset(a,1,n);
  double t2=now();
  memset(a,2,n);
  double t3=now();
  munmap(p,n+(2<<20));
  double t4=now();
  printf("huge=%d first-touch %.3f s, second %.3f s, munmap %.3f\n",huge,t2-t1,t3-t2,t4-t3);
  }
}
