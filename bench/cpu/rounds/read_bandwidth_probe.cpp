#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <immintrin.h>
#include <omp.h>
int main(int argc,char**argv){
  size_t n=(size_t)256<<20; double secs=argc>1?atof(argv[1]):60;
  char* p=(char*)aligned_alloc(4096,n); memset(p,1,n);
  auto t0=std::chrono::steady_clock::now();
  double acc=0;
  while(true){
    auto a=std::chrono::steady_clock::now();
    double el=std::chrono::duration<double>(a-t0).count(); if(el>secs)break;
    __m512i s=_mm512_setzero_si512();
    #pragma omp parallel reduction(+:acc)
    { __m512i x=_mm512_setzero_si512();
      #pragma omp for
      for(size_t i=0;i<n;i+=64) x=_mm512_add_epi64(x,_mm512_load_si512(p+i));
      acc+=_mm512_reduce_add_epi64(x);}
    auto b=std::chrono::steady_clock::now();
    printf("%.3f %.2f\n",el,n/std::chrono::duration<double>(b-a).count()/1e9);
  }
  fprintf(stderr,"%g\n",acc);
}
