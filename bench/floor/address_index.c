/* The cost of the wallets table's address index, outside walletops (docs/core.md "Wallet storage").
 * Inserts N wallet rows into the core's wallets schema, 1000 per transaction (WAL, synchronous=FULL, the
 * core's cache settings), with random 44-character addresses, and prints the CPU time per row.
 *   gcc -O2 -o /tmp/address_index bench/floor/address_index.c -lsqlite3
 *   /tmp/address_index AUTOINCREMENT ROWS_PER_STATEMENT INDEX N
 * INDEX: 1 unique (project_id, address) text index (schema 4), 3 an integer address key (schema 5),
 * 2 no address index. Example: /tmp/address_index 1 1 3 100000 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static const char*SCHEMA="CREATE TABLE accounts(id TEXT PRIMARY KEY);"
"CREATE TABLE wallets (seq INTEGER PRIMARY KEY %s, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL, account_id TEXT NOT NULL REFERENCES accounts(id), type TEXT NOT NULL, address TEXT NOT NULL, reference TEXT, key_origin TEXT NOT NULL, sealed_key BLOB NOT NULL, created_at INTEGER NOT NULL%s);"
"CREATE INDEX wallets_by_account ON wallets(account_id, seq); CREATE INDEX wallets_by_reference ON wallets(account_id, reference);"
"INSERT INTO accounts VALUES('acc_01hzzzzzzzzzzzzzzzzzzzzzzz');";
static void rnd(char*out,int n){static const char*a="123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";for(int i=0;i<n;i++)out[i]=a[random()%58];out[n]=0;}
int main(int argc,char**argv){
  if(argc<5){fprintf(stderr,"usage: %s AUTOINCREMENT ROWS_PER_STATEMENT INDEX N\n",argv[0]);return 2;}
  int autoinc=atoi(argv[1]), per=atoi(argv[2]), fk=atoi(argv[3]), N=atoi(argv[4]);
  char path[64]; sprintf(path,"/tmp/sq/t%d.db",getpid()); unlink(path);
  sqlite3*db; sqlite3_open(path,&db);
  sqlite3_exec(db,"PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-8192; PRAGMA cache_spill=OFF; PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint=8192;",0,0,0);
  if(fk==1) sqlite3_exec(db,"PRAGMA foreign_keys=ON",0,0,0);
  char schema[2048]; sprintf(schema,SCHEMA,autoinc?"AUTOINCREMENT":"", fk==2?"":(fk==3?", address_key INTEGER NOT NULL UNIQUE":", UNIQUE (project_id, address)")); sqlite3_exec(db,schema,0,0,0);
  char sql[200000]; sprintf(sql,"INSERT INTO wallets(id, project_id, account_id, type, address, reference, key_origin, sealed_key, created_at%s) VALUES ", fk==3?", address_key":"");
  for(int i=0;i<per;i++) strcat(sql, fk==3? (i? ",(?,?,?,?,?,?,?,?,?,?)":"(?,?,?,?,?,?,?,?,?,?)") : (i? ",(?,?,?,?,?,?,?,?,?)":"(?,?,?,?,?,?,?,?,?)"));
  sqlite3_stmt*st; if(sqlite3_prepare_v2(db,sql,-1,&st,0)){printf("%s\n",sqlite3_errmsg(db));return 1;}
  unsigned char sealed[60]; memset(sealed,7,60); char id[40],addr[50],ref[30];
  double t=now(); long seq=0;
  for(int b=0;b<N/1000;b++){
    sqlite3_exec(db,"BEGIN IMMEDIATE; SAVEPOINT request",0,0,0);
    for(int r=0;r<1000;r+=per){
      for(int k=0;k<per;k++){ int o=k*(fk==3?10:9); seq++;
        sprintf(id,"wal_%012ld%014ld",(long)b,seq); rnd(addr,44); sprintf(ref,"wallet-%ld",seq);
        sqlite3_bind_text(st,o+1,id,-1,SQLITE_TRANSIENT); sqlite3_bind_text(st,o+2,"prj_01hzzzzzzzzzzzzzzzzzzzzzzz",-1,SQLITE_STATIC);
        sqlite3_bind_text(st,o+3,"acc_01hzzzzzzzzzzzzzzzzzzzzzzz",-1,SQLITE_STATIC); sqlite3_bind_text(st,o+4,"solana",-1,SQLITE_STATIC);
        sqlite3_bind_text(st,o+5,addr,-1,SQLITE_TRANSIENT); sqlite3_bind_text(st,o+6,ref,-1,SQLITE_TRANSIENT);
        sqlite3_bind_text(st,o+7,"enclave",-1,SQLITE_STATIC); sqlite3_bind_blob(st,o+8,sealed,60,SQLITE_STATIC); sqlite3_bind_int64(st,o+9,1700000000); if(fk==3) sqlite3_bind_int64(st,o+10,((long)random()<<33)^((long)random()<<2)^random());}
      if(sqlite3_step(st)!=SQLITE_DONE){printf("err %s\n",sqlite3_errmsg(db));return 1;} sqlite3_reset(st);
    }
    sqlite3_exec(db,"RELEASE request; COMMIT",0,0,0);
  }
  printf("autoinc=%d per=%d fk=%d N=%d: %.2f us/row\n",autoinc,per,fk,N,(now()-t)/N*1e6);
  sqlite3_close(db); unlink(path);
}
