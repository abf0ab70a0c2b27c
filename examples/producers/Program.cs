// .NET 8's Random.Shuffle in a console project (dotnet new console), seeded by shuffle-bias.
var seed = ulong.Parse(Environment.GetEnvironmentVariable("SHUFFLE_BIAS_SEED")!);
var rng = new Random((int)(seed % int.MaxValue));
int[] deck = [0, 1, 2, 3, 4];
using var output = new StreamWriter(Console.OpenStandardOutput());
while (true)
{
    rng.Shuffle(deck);
    output.WriteLine(string.Join(' ', deck));
}
