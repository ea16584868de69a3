.output-ppc64le/json.o: user/json.c user/json.h
user/json.h:
