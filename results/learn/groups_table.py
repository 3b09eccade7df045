"""Writes the table of results/learn/groups (groups.sh) from its reports."""
import json, os, sys
root=sys.argv[1]
print("| training group | topic | held-out targets | recall @1000 (breadth-first) | pages to 50 % (breadth-first) | pages to 75 % (breadth-first, half) | speed-up at 75 % | 75 % within half of breadth-first | recall @1000 above breadth-first |")
print("|---|---|---:|---|---|---|---:|---|---|")
for g in ["cornell","texas","washington","wisconsin"]:
  for t in ["course","faculty","student","project","staff"]:
    p=os.path.join(root,f"{g}-{t}","report.json")
    if not os.path.exists(p): continue
    r=json.load(open(p)); tp=r["topics"][0]
    def at(lst,n):
      for x in lst:
        if x["pages"]==n: return x["recall"]
    def to(lst,s):
      for x in lst:
        if x["share"]==s: return x.get("pages")
    r1=at(tp["recall_at"],1000); b1=at(tp["bfs"]["recall_at"],1000)
    p50=to(tp["pages_to"],0.5); b50=to(tp["bfs"]["pages_to"],0.5)
    p75=to(tp["pages_to"],0.75); b75=to(tp["bfs"]["pages_to"],0.75)
    sp = f"{b75/p75:.2f}×" if p75 and b75 else "–"
    half = "yes" if p75 and b75 and p75*2<=b75 else "no"
    above = "yes" if r1 is not None and b1 is not None and r1>b1 else "no"
    f=lambda v: "–" if v is None else str(v)
    print(f"| {g} | {t} | {tp['targets']} | {r1:.3f} ({b1:.3f}) | {f(p50)} ({f(b50)}) | {f(p75)} ({f(b75)}, {f(b75 and b75//2)}) | {sp} | {half} | {above} |")
