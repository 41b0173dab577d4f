/* The cost of the wallets table's address index, outside walletops (docs/core.md "Wallet storage").
 * Inserts N wallet rows into the core's wallets schema, 1000 per transaction (WAL, synchronous=FULL, the
 * core's cache settings), with random 44-character addresses, and prints the CPU time per row.
 *   gcc -O2 -o /tmp/address_index bench/floor/address_index.c -lsqlite3
 *   /tmp/address_index AUTOINCREMENT ROWS_PER_STATEMENT INDEX N
 * INDEX: 1 unique (project_id, address) text index (schema 4), 3 an integer address key index (schema 5),
 * 4 the address keys in a recent and a settled tier (schema 6: the core's AddressKeyTiers, 32,768 recent
 * keys, 4,096 settled per transaction), 2 no address index. Modes 3 and 4 look the key up before each
 * insert, as the core does (mode 4: one EXISTS over both tiers; PROBE=complex the core's earlier
 * `seq IN (... UNION ALL ...)` query, PROBE=two two plain probes). Example: /tmp/address_index 1 1 4 1000000 */
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
  char schema[2048]; sprintf(schema,SCHEMA,autoinc?"AUTOINCREMENT":"", fk==2?"":(fk==4?", address_key INTEGER NOT NULL":fk==3?", address_key INTEGER NOT NULL UNIQUE":", UNIQUE (project_id, address)")); sqlite3_exec(db,schema,0,0,0);
  char sql[200000]; sprintf(sql,"INSERT INTO wallets(id, project_id, account_id, type, address, reference, key_origin, sealed_key, created_at%s) VALUES ", fk>=3?", address_key":"");
  for(int i=0;i<per;i++) strcat(sql, fk>=3? (i? ",(?,?,?,?,?,?,?,?,?,?)":"(?,?,?,?,?,?,?,?,?,?)") : (i? ",(?,?,?,?,?,?,?,?,?)":"(?,?,?,?,?,?,?,?,?)"));
  sqlite3_stmt*st; if(sqlite3_prepare_v2(db,sql,-1,&st,0)){printf("%s\n",sqlite3_errmsg(db));return 1;}
  /* Schema 6's tiers and the statements the core runs on them. */
  sqlite3_exec(db,"CREATE TABLE settled(k INTEGER NOT NULL, s INTEGER NOT NULL, PRIMARY KEY(k,s)) WITHOUT ROWID;"
    "CREATE TABLE recent(k INTEGER NOT NULL, s INTEGER NOT NULL, PRIMARY KEY(k,s)) WITHOUT ROWID;",0,0,0);
  sqlite3_stmt *probe[2], *recent, *count, *boundary, *copy, *removal;
  const char*variant=getenv("PROBE");
  const char*complexq="SELECT seq, id, account_id, type, address, reference, key_origin FROM wallets WHERE seq IN (SELECT s FROM recent WHERE k = ?1 UNION ALL SELECT s FROM settled WHERE k = ?1) AND project_id = 'p' AND address = 'a' ORDER BY seq LIMIT 1";
  const char*existsq="SELECT EXISTS(SELECT 1 FROM recent WHERE k = ?1) OR EXISTS(SELECT 1 FROM settled WHERE k = ?1)";
  /* PROBE: "exists" (default, the core's since 2026-11-30), "complex" (the core's lookup query before), "two"
     (two plain probes). */
  int single = !variant || variant[0]=='c' || variant[0]=='e';
  if(single){ if(sqlite3_prepare_v2(db,variant&&variant[0]=='c'?complexq:existsq,-1,&probe[0],0)){printf("%s\n",sqlite3_errmsg(db));return 1;} }
  else sqlite3_prepare_v2(db,fk==4?"SELECT s FROM recent WHERE k=?":"SELECT seq FROM wallets WHERE address_key=?",-1,&probe[0],0);
  sqlite3_prepare_v2(db,"SELECT s FROM settled WHERE k=?",-1,&probe[1],0);
  sqlite3_prepare_v2(db,"INSERT INTO recent VALUES(?,?)",-1,&recent,0);
  sqlite3_prepare_v2(db,"SELECT count(*) FROM recent",-1,&count,0);
  sqlite3_prepare_v2(db,"SELECT k FROM recent WHERE k>=? ORDER BY k LIMIT 1 OFFSET 4095",-1,&boundary,0);
  sqlite3_prepare_v2(db,"INSERT INTO settled SELECT k,s FROM recent WHERE k BETWEEN ?1 AND ?2 ORDER BY k,s",-1,&copy,0);
  sqlite3_prepare_v2(db,"DELETE FROM recent WHERE k BETWEEN ?1 AND ?2",-1,&removal,0);
  long cursor=-9223372036854775807L-1, since=0;
  unsigned char sealed[60]; memset(sealed,7,60); char id[40],addr[50],ref[30];
  double t=now(); long seq=0;
  for(int b=0;b<N/1000;b++){
    sqlite3_exec(db,"BEGIN IMMEDIATE; SAVEPOINT request",0,0,0);
    for(int r=0;r<1000;r+=per){
      for(int k=0;k<per;k++){ int o=k*(fk>=3?10:9); seq++;
        sprintf(id,"wal_%012ld%014ld",(long)b,seq); rnd(addr,44); sprintf(ref,"wallet-%ld",seq);
        sqlite3_bind_text(st,o+1,id,-1,SQLITE_TRANSIENT); sqlite3_bind_text(st,o+2,"prj_01hzzzzzzzzzzzzzzzzzzzzzzz",-1,SQLITE_STATIC);
        sqlite3_bind_text(st,o+3,"acc_01hzzzzzzzzzzzzzzzzzzzzzzz",-1,SQLITE_STATIC); sqlite3_bind_text(st,o+4,"solana",-1,SQLITE_STATIC);
        sqlite3_bind_text(st,o+5,addr,-1,SQLITE_TRANSIENT); sqlite3_bind_text(st,o+6,ref,-1,SQLITE_TRANSIENT);
        sqlite3_bind_text(st,o+7,"enclave",-1,SQLITE_STATIC); sqlite3_bind_blob(st,o+8,sealed,60,SQLITE_STATIC); sqlite3_bind_int64(st,o+9,1700000000); if(fk>=3){ long key=((long)random()<<33)^((long)random()<<2)^random(); sqlite3_bind_int64(st,o+10,key);
          if(fk==4){ for(int t=0;t<(single?1:2);t++){ sqlite3_bind_int64(probe[t],1,key); sqlite3_step(probe[t]); sqlite3_reset(probe[t]); }
            sqlite3_bind_int64(recent,1,key); sqlite3_bind_int64(recent,2,seq); sqlite3_step(recent); sqlite3_reset(recent); }
          else { sqlite3_bind_int64(probe[0],1,key); sqlite3_step(probe[0]); sqlite3_reset(probe[0]); } }}
      if(sqlite3_step(st)!=SQLITE_DONE){printf("err %s\n",sqlite3_errmsg(db));return 1;} sqlite3_reset(st);
    }
    sqlite3_exec(db,"RELEASE request; COMMIT",0,0,0);
    /* The core's settling: every 4,096 rows, move 4,096-key chunks while 32,768 or more are recent. */
    if(fk==4 && (since+=1000)>=4096){ since=0; sqlite3_step(count); long left=sqlite3_column_int64(count,0); sqlite3_reset(count);
      while(left>=32768){ long hi=9223372036854775807L;
        sqlite3_exec(db,"BEGIN IMMEDIATE",0,0,0);
        sqlite3_bind_int64(boundary,1,cursor); if(sqlite3_step(boundary)==SQLITE_ROW) hi=sqlite3_column_int64(boundary,0); sqlite3_reset(boundary);
        sqlite3_bind_int64(copy,1,cursor); sqlite3_bind_int64(copy,2,hi); sqlite3_step(copy); sqlite3_reset(copy); left-=sqlite3_changes(db);
        sqlite3_bind_int64(removal,1,cursor); sqlite3_bind_int64(removal,2,hi); sqlite3_step(removal); sqlite3_reset(removal);
        sqlite3_exec(db,"COMMIT",0,0,0); cursor = hi==9223372036854775807L ? -9223372036854775807L-1 : hi+1; } }
  }
  printf("autoinc=%d per=%d fk=%d N=%d: %.2f us/row\n",autoinc,per,fk,N,(now()-t)/N*1e6);
  sqlite3_close(db); unlink(path);
}
